#include <gtest/gtest.h>

#include <cmath>
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
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::f8e4m3}) {
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

namespace {

float scalar(const HostTensor& t) { return static_cast<float>(load_as_double(DType::f32, t.data.data(), 0)); }

HostTensor tensor(DType t, std::vector<std::int64_t> shape, std::initializer_list<float> values) {
  HostTensor x = HostTensor::zeros(t, std::move(shape));
  std::size_t i = 0;
  for (float v : values) store_from_float(t, x.data.data(), i++, v);
  return x;
}

}  // namespace

TEST(GemmWorkload, Fp8InputsAreKMajorWithSeededScalesAndBf16Output) {
  GemmProblem p(5, 3, 32, DType::f8e4m3);
  EXPECT_EQ(p.input_names(), (std::vector<std::string>{"A", "B", "scale_a", "scale_b"}));
  const auto x = p.make_inputs(7);
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[0].dtype, DType::f8e4m3);
  EXPECT_EQ(x[0].shape, (std::vector<std::int64_t>{5, 32}));
  EXPECT_EQ(x[1].dtype, DType::f8e4m3);
  EXPECT_EQ(x[1].shape, (std::vector<std::int64_t>{3, 32}));  // n x k
  for (int s : {2, 3}) {
    EXPECT_EQ(x[s].dtype, DType::f32);
    EXPECT_EQ(x[s].shape, (std::vector<std::int64_t>{1}));
  }
  EXPECT_EQ(p.make_inputs(7)[2].data, x[2].data);
  bool above_one = false;
  for (std::size_t i = 0; i < x[0].numel(); ++i) {
    const double v = load_as_double(DType::f8e4m3, x[0].data.data(), i);
    EXPECT_TRUE(v >= -2 && v <= 2) << v;  // [-2, 2) rounded to e4m3: values above 1.9375 round to 2
    above_one = above_one || std::fabs(v) > 1;
  }
  EXPECT_TRUE(above_one);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    const auto in = p.make_inputs(seed);
    const float sa = scalar(in[2]), sb = scalar(in[3]);
    EXPECT_TRUE(sa >= 0.5f && sa < 1.5f && sb >= 0.5f && sb < 1.5f) << sa << " " << sb;
    int exp = 0;
    for (float v : {sa, sb}) EXPECT_NE(std::frexp(v, &exp), 0.5f) << v;  // not a power of two
  }
  EXPECT_NE(scalar(p.make_inputs(8)[2]), scalar(x[2]));
  const HostTensor c = p.output_like();
  EXPECT_EQ(c.dtype, DType::bf16);
  EXPECT_EQ(c.shape, (std::vector<std::int64_t>{5, 3}));
  EXPECT_EQ(p.dtype(), DType::f8e4m3);
  EXPECT_EQ(p.flops(), 2.0 * 5 * 3 * 32);
  EXPECT_EQ(p.min_bytes(), 5 * 32 + 3 * 32 + 2 * 5 * 3);
  EXPECT_EQ(p.device_bytes(), 5u * 32 + 3 * 32 + 2 * 5 * 3 + 8);
}

TEST(GemmWorkload, Fp8ReferenceIsScaledATimesBTransposed) {
  GemmProblem p(2, 2, 2, DType::f8e4m3);
  const std::vector<HostTensor> in = {tensor(DType::f8e4m3, {2, 2}, {1, 2, 3, 4}),
                                      tensor(DType::f8e4m3, {2, 2}, {1, 0.5f, 2, -1}),  // rows are B's columns
                                      tensor(DType::f32, {1}, {0.75f}), tensor(DType::f32, {1}, {1.25f})};
  const Reference ref = p.reference(in, 0);
  EXPECT_EQ(ref.index, (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(ref.value, (std::vector<double>{2 * 0.9375, 0, 5 * 0.9375, 2 * 0.9375}));
}

// What the fp8 check exists to catch: outputs that ignore a scale, apply one twice, or read B
// as k x n all fail it, on every seed.
TEST(GemmWorkload, Fp8CheckCatchesScaleAndLayoutMistakes) {
  constexpr std::int64_t m = 32, n = 24, k = 48;
  GemmProblem p(m, n, k, DType::f8e4m3);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto in = p.make_inputs(seed);
    const Reference ref = p.reference(in, 0);
    const double sa = scalar(in[2]), sb = scalar(in[3]);
    auto output = [&](auto value) {
      HostTensor c = p.output_like();
      for (std::size_t r = 0; r < ref.index.size(); ++r)
        store_from_float(c.dtype, c.data.data(), ref.index[r], static_cast<float>(value(r)));
      return verify::check_output(c, ref, {0.02, 0.01});
    };
    EXPECT_TRUE(output([&](std::size_t r) { return ref.value[r]; }).passed);
    EXPECT_FALSE(output([&](std::size_t r) { return ref.value[r] / sa; }).passed) << "no scale_a, seed " << seed;
    EXPECT_FALSE(output([&](std::size_t r) { return ref.value[r] / sb; }).passed) << "no scale_b, seed " << seed;
    EXPECT_FALSE(output([&](std::size_t r) { return ref.value[r] / sa / sb; }).passed) << "no scales, seed " << seed;
    EXPECT_FALSE(output([&](std::size_t r) { return ref.value[r] * sa / sb; }).passed) << "sa twice, seed " << seed;
    EXPECT_FALSE(output([&](std::size_t r) { return ref.value[r] * sb / sa; }).passed) << "sb twice, seed " << seed;
    const std::vector<float> a = to_floats(in[0]), b = to_floats(in[1]);
    EXPECT_FALSE(output([&](std::size_t r) {
                   const std::size_t i = ref.index[r] / n, j = ref.index[r] % n;
                   double acc = 0;
                   for (std::int64_t q = 0; q < k; ++q) acc += double(a[i * k + q]) * b[q * n + j];  // B as k x n
                   return acc * sa * sb;
                 }).passed)
        << "B read as k x n, seed " << seed;
  }
}
