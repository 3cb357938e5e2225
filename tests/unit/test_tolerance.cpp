#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "verify/tolerance.hpp"

using namespace assay;

namespace {
HostTensor tensor(DType t, const std::vector<float>& v) {
  HostTensor x = HostTensor::zeros(t, {static_cast<std::int64_t>(v.size())});
  for (std::size_t i = 0; i < v.size(); ++i) store_from_float(t, x.data.data(), i, v[i]);
  return x;
}
Reference all(const std::vector<double>& v) {
  Reference r{"fp64-cpu", {}, v};
  for (std::size_t i = 0; i < v.size(); ++i) r.index.push_back(i);
  return r;
}
}  // namespace

TEST(Tolerance, ExactMatchPasses) {
  const auto c = verify::check_output(tensor(DType::f32, {1, -2, 3}), all({1, -2, 3}), {0.0, 0.0});
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.fails, 0u);
  EXPECT_EQ(c.checked, 3u);
  EXPECT_EQ(c.max_abs, 0.0);
  EXPECT_EQ(c.rel_l2, 0.0);
}

TEST(Tolerance, BoundaryIsInclusiveAndJustBeyondFails) {
  // |out - ref| <= atol + rtol*|ref|: ref 10, atol 0.5, rtol 0.05 -> bound 1.0
  EXPECT_TRUE(verify::check_output(tensor(DType::f32, {11.0f}), all({10.0}), {0.5, 0.05}).passed);
  const auto c = verify::check_output(tensor(DType::f32, {11.0001f}), all({10.0}), {0.5, 0.05});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.fails, 1u);
  EXPECT_NE(c.first_failure.find("element 0"), std::string::npos);
}

TEST(Tolerance, NanNeverPassesEvenWithHugeTolerance) {
  const auto c = verify::check_output(tensor(DType::f32, {1, NAN, 3}), all({1, 2, 3}), {1e30, 1e30});
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.fails, 1u);
  EXPECT_EQ(c.nan_count, 1u);
  EXPECT_TRUE(std::isinf(c.rel_l2));
}

TEST(Tolerance, InfinityFails) {
  const auto c = verify::check_output(tensor(DType::f32, {INFINITY}), all({INFINITY}), {1, 1});
  EXPECT_FALSE(c.passed);
}

TEST(Tolerance, PoisonedOutputFailsInEveryDtype) {
  for (DType t : {DType::f32, DType::f16, DType::bf16}) {
    HostTensor out = HostTensor::zeros(t, {4});
    std::memset(out.data.data(), 0xff, out.data.size());  // what poison_output writes
    const auto c = verify::check_output(out, all({0, 0, 0, 0}), {1e9, 1e9});
    EXPECT_FALSE(c.passed) << dtype_name(t);
    EXPECT_EQ(c.fails, 4u);
  }
}

TEST(Tolerance, OneUnwrittenElementIsFound) {
  HostTensor out = tensor(DType::f16, {1, 2, 3, 4});
  const std::uint16_t nan = 0xffff;
  std::memcpy(out.data.data() + 2 * 2, &nan, 2);
  const auto c = verify::check_output(out, all({1, 2, 3, 4}), {0.02, 0.01});
  EXPECT_EQ(c.fails, 1u);
  EXPECT_NE(c.first_failure.find("element 2"), std::string::npos);
}

TEST(Tolerance, MetricsHaveKnownValues) {
  // errors 0.1 and 0.2 on refs 1 and 2: max_abs .2, max_rel .1, rel_l2 = sqrt(.05/5) = 0.1
  const auto c = verify::check_output(tensor(DType::f32, {1.1f, 2.2f}), all({1, 2}), {0.5, 0});
  EXPECT_TRUE(c.passed);
  EXPECT_NEAR(c.max_abs, 0.2, 1e-6);
  EXPECT_NEAR(c.max_rel, 0.1, 1e-6);
  EXPECT_NEAR(c.rel_l2, 0.1, 1e-6);
}

TEST(Tolerance, SampledIndicesOnly) {
  Reference r{"fp64-cpu-sampled-rows", {1, 3}, {2, 4}};
  const auto c = verify::check_output(tensor(DType::f32, {NAN, 2, NAN, 4}), r, {0, 0});
  EXPECT_TRUE(c.passed);
  EXPECT_EQ(c.checked, 2u);
}
