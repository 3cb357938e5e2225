// The mlp and attention oracles against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "workloads/attention.hpp"
#include "workloads/gemm.hpp"
#include "workloads/mlp.hpp"

using namespace assay;

namespace {
void set(HostTensor& t, const std::vector<float>& v) {
  ASSERT_EQ(v.size(), t.numel());
  for (std::size_t i = 0; i < v.size(); ++i) store_from_float(t.dtype, t.data.data(), i, v[i]);
}
}  // namespace

TEST(Mlp, GeluKnownValues) {
  EXPECT_DOUBLE_EQ(gelu_erf(0), 0);
  EXPECT_NEAR(gelu_erf(1), 0.8413447460685429, 1e-15);   // x * Phi(x)
  EXPECT_NEAR(gelu_erf(-1), -0.15865525393145707, 1e-15);
}

TEST(Mlp, OracleOnAHandComputedCase) {
  MlpProblem p(1, 1, DType::f32);  // H = 1, 4H = 4
  auto in = p.make_inputs(1);
  set(in[0], {2});                  // X
  set(in[1], {1, -1, 0.5, 0});      // W1 [1,4]
  set(in[2], {0, 0, 0, 1});         // b1
  set(in[3], {1, 1, 2, 3});         // W2 [4,1]
  set(in[4], {0.25});               // b2
  // hidden = [2, -2, 1, 1]; y = gelu(2) + gelu(-2) + 2 gelu(1) + 3 gelu(1) + 0.25
  const double want = gelu_erf(2) + gelu_erf(-2) + 5 * gelu_erf(1) + 0.25;
  const auto ref = p.reference(in, 0);
  ASSERT_EQ(ref.value.size(), 1u);
  EXPECT_NEAR(ref.value[0], want, 1e-12);
  EXPECT_EQ(p.flops(), 16.0);
}

TEST(Mlp, InputsAreScaledLikeALinearLayer) {
  MlpProblem p(4, 64, DType::f32);
  const auto in = p.make_inputs(3);
  double max_w1 = 0;
  for (float v : to_floats(in[1])) max_w1 = std::max(max_w1, std::fabs(double(v)));
  EXPECT_LE(max_w1, 1.0 / 8);  // 1/sqrt(64)
  EXPECT_GT(max_w1, 0.1);
}

TEST(Attention, UniformKeysAverageTheValues) {
  AttentionProblem p(1, 1, 3, 2, false, DType::f32);
  auto in = p.make_inputs(1);
  set(in[1], {1, 1, 1, 1, 1, 1});         // K: every key the same -> uniform weights
  set(in[2], {1, 2, 3, 4, 5, 6});         // V rows (1,2) (3,4) (5,6)
  const auto ref = p.reference(in, 0);
  ASSERT_EQ(ref.value.size(), 6u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(ref.value[2 * i], 3, 1e-12);
    EXPECT_NEAR(ref.value[2 * i + 1], 4, 1e-12);
  }
}

TEST(Attention, CausalFirstRowSeesOnlyItself) {
  AttentionProblem p(1, 1, 3, 2, true, DType::f32);
  auto in = p.make_inputs(1);
  set(in[2], {1, 2, 3, 4, 5, 6});
  const auto ref = p.reference(in, 0);
  EXPECT_NEAR(ref.value[0], 1, 1e-12);
  EXPECT_NEAR(ref.value[1], 2, 1e-12);
  EXPECT_EQ(p.flops(), 4.0 * 9 * 2 / 2);
}

TEST(Attention, SoftmaxWeightsFollowTheScaledScores) {
  // d = 4: scale 1/2. q = (2,0,0,0); keys (1,0,0,0) and (0,0,0,0): scores 1 and 0 after scaling.
  AttentionProblem p(1, 1, 2, 4, false, DType::f32);
  auto in = p.make_inputs(1);
  set(in[0], {2, 0, 0, 0, 0, 0, 0, 0});
  set(in[1], {1, 0, 0, 0, 0, 0, 0, 0});
  set(in[2], {1, 0, 0, 0, 0, 0, 0, 0});
  const auto ref = p.reference(in, 0);
  EXPECT_NEAR(ref.value[0], std::exp(1.0) / (std::exp(1.0) + 1), 1e-12);
}

TEST(Attention, ParametersAreValidated) {
  AttentionWorkload w;
  EXPECT_THROW(w.make({{"b", 1}, {"h", 1}, {"s", 8}, {"d", 8}, {"causal", 2}}, DType::f16), InputError);
  EXPECT_THROW(w.make({{"b", 1}, {"h", 1}, {"s", 8}, {"d", 8}}, DType::f16), InputError);
  EXPECT_EQ(w.param_range("causal").second, 1);
  const auto p = w.make({{"b", 2}, {"h", 3}, {"s", 8}, {"d", 4}, {"causal", 0}}, DType::f16);
  EXPECT_EQ(p->flops(), 4.0 * 2 * 3 * 64 * 4);
  EXPECT_EQ(p->reference(p->make_inputs(1), 5).index.size(), 5u * 4);  // 5 sampled query rows
}
