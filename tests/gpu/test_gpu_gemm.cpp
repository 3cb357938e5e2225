// assay and cuBLAS GEMM against the fp64 oracle on awkward shapes, every dtype, poisoned output.
#include <tuple>

#include "backends/backend.hpp"
#include "gpu_test_support.hpp"
#include "verify/tolerance.hpp"
#include "workloads/gemm.hpp"

using namespace assay;

namespace {
using Shape = std::tuple<int, int, int>;
using Param = std::tuple<std::string, DType, Shape>;

class GpuGemm : public ::testing::TestWithParam<Param> {};

TEST_P(GpuGemm, MatchesFp64Oracle) {
  ASSAY_REQUIRE_GPU();
  const auto& [backend_name, dtype, shape] = GetParam();
  const auto [m, n, k] = shape;
  const Backend* backend = find_backend(backend_name);
  ASSERT_NE(backend, nullptr);
  if (!backend->unavailable_reason().empty()) GTEST_SKIP() << backend->unavailable_reason();
  GemmProblem p(m, n, k, dtype);
  for (std::uint64_t seed : {11u, 12u}) {  // fresh inputs: the same function on any input
    const auto inputs = p.make_inputs(seed);
    auto inst = backend->instantiate(p, inputs);
    inst->poison_output();
    inst->call(nullptr);
    const auto c = verify::check_output(inst->read_output(), p.reference(inputs, 0), {0.02, 0.01});
    EXPECT_TRUE(c.passed) << backend_name << " " << dtype_name(dtype) << " " << m << "x" << n << "x" << k
                          << " (" << inst->variant() << "): fails=" << c.fails << "/" << c.checked
                          << " nan=" << c.nan_count << " max_abs=" << c.max_abs << " " << c.first_failure;
    EXPECT_EQ(c.checked, static_cast<std::uint64_t>(m) * n);
  }
}

std::string name_of(const ::testing::TestParamInfo<Param>& info) {
  const auto& [b, t, s] = info.param;
  return b + "_" + std::string(dtype_name(t)) + "_" + std::to_string(std::get<0>(s)) + "x" +
         std::to_string(std::get<1>(s)) + "x" + std::to_string(std::get<2>(s));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuGemm,
    ::testing::Combine(::testing::Values("assay", "cublas"), ::testing::Values(DType::f32, DType::f16, DType::bf16),
                       ::testing::Values(Shape{1, 1, 1}, Shape{17, 33, 65}, Shape{1000, 1000, 1000},
                                         Shape{4096, 1, 4096}, Shape{1, 4096, 4096}, Shape{127, 129, 8},
                                         Shape{256, 256, 7}, Shape{130, 66, 520})),
    name_of);

TEST(GpuGemmPoison, UnwrittenOutputFailsTheCheck) {
  ASSAY_REQUIRE_GPU();
  GemmProblem p(64, 64, 64, DType::f16);
  const auto inputs = p.make_inputs(1);
  auto inst = find_backend("assay")->instantiate(p, inputs);
  inst->poison_output();
  const auto c = verify::check_output(inst->read_output(), p.reference(inputs, 0), {0.02, 0.01});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nan_count, 64u * 64);
}
}  // namespace
