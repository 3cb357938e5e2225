#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.hpp"
#include "backends/cpu_gemm.hpp"
#include "core/error.hpp"
#include "verify/tolerance.hpp"
#include "workloads/gemm.hpp"

using namespace assay;

TEST(CpuGemm, SmallKnownProduct) {
  const float a[] = {1, 2, 3, 4, 5, 6};  // 2x3
  const float b[] = {7, 8, 9, 10, 11, 12};  // 3x2
  float c[4];
  cpu_gemm_f32(2, 2, 3, a, b, c);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
}

TEST(GemmWorkload, InputsAreSeededRandomNotZero) {
  GemmProblem p(64, 32, 48, DType::bf16);
  const auto x = p.make_inputs(7), y = p.make_inputs(7), z = p.make_inputs(8);
  EXPECT_EQ(x[0].data, y[0].data);
  EXPECT_NE(x[0].data, z[0].data);
  std::size_t zeros = 0;
  for (std::size_t i = 0; i < x[0].numel(); ++i) zeros += load_as_double(DType::bf16, x[0].data.data(), i) == 0;
  EXPECT_LT(zeros, x[0].numel() / 100);
  EXPECT_EQ(p.flops(), 2.0 * 64 * 32 * 48);
  EXPECT_EQ(p.min_bytes(), 2.0 * (64 * 48 + 48 * 32 + 64 * 32));
}

TEST(GemmWorkload, RejectsBadParameters) {
  GemmWorkload w;
  EXPECT_THROW(w.make({{"m", 1}, {"n", 1}}, DType::f16), InputError);
  EXPECT_THROW(w.make({{"m", 0}, {"n", 1}, {"k", 1}}, DType::f16), InputError);
  EXPECT_THROW(w.make({{"m", 1}, {"n", 1}, {"k", 1}, {"q", 1}}, DType::f16), InputError);
  // 2^31-1 squared elements of 4 bytes is more than 2^62 bytes.
  EXPECT_THROW(w.make({{"m", 2147483647}, {"n", 2147483647}, {"k", 1}}, DType::f32), InputError);
}

// The CPU backend through the same path as `assay run`: poison, call, check.
TEST(CpuGemm, BackendPassesTheGateOnOddShapes) {
  const Backend* cpu = find_backend("cpu");
  ASSERT_NE(cpu, nullptr);
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    for (auto [m, n, k] : {std::tuple{1, 1, 1}, std::tuple{17, 33, 65}, std::tuple{64, 1, 300}}) {
      GemmProblem p(m, n, k, t);
      const auto inputs = p.make_inputs(3);
      auto inst = cpu->instantiate(p, inputs);
      inst->poison_output();
      EXPECT_FALSE(verify::check_output(inst->read_output(), p.reference(inputs, 0), {0.02, 0.01}).passed);
      inst->call(nullptr);
      const auto c = verify::check_output(inst->read_output(), p.reference(inputs, 0), {0.02, 0.01});
      EXPECT_TRUE(c.passed) << dtype_name(t) << " " << m << "x" << n << "x" << k << ": " << c.first_failure;
      EXPECT_EQ(c.checked, static_cast<std::uint64_t>(m * n));
    }
  }
}

TEST(GemmWorkload, SampledRowsIncludeFirstAndLast) {
  GemmProblem p(100, 8, 4, DType::f32);
  const auto ref = p.reference(p.make_inputs(1), 4);
  EXPECT_EQ(ref.oracle, "fp64-cpu-sampled-rows");
  ASSERT_EQ(ref.index.size(), 4u * 8);
  EXPECT_EQ(ref.index.front(), 0u);
  EXPECT_EQ(ref.index.back(), 99u * 8 + 7);
}
