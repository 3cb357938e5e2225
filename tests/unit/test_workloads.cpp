// The mlp, attention and block oracles against values worked out by hand, and the assay-lazy
// backend (the graph engine on its CPU executor) against every workload's oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "backends/backend.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"
#include "workloads/block.hpp"
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

TEST(Block, ParametersAreValidatedAndFlopsCounted) {
  BlockWorkload w;
  EXPECT_THROW(w.make({{"batch", 1}, {"seq", 4}, {"hidden", 10}, {"heads", 4}, {"causal", 0}}, DType::f16), InputError);
  EXPECT_THROW(w.make({{"batch", 1}, {"seq", 4}, {"hidden", 8}, {"heads", 4}, {"causal", 2}}, DType::f16), InputError);
  EXPECT_THROW(w.make({{"batch", 1}, {"seq", 4}, {"hidden", 8}, {"heads", 4}}, DType::f16), InputError);
  const auto p = w.make({{"batch", 2}, {"seq", 4}, {"hidden", 8}, {"heads", 2}, {"causal", 1}}, DType::f16);
  EXPECT_EQ(p->flops(), 24.0 * 8 * 64 + 4.0 * 2 * 16 * 8 / 2);
  EXPECT_EQ(p->input_names().size(), p->make_inputs(1).size());
}

TEST(Block, SampledRowsAreTheFullOraclesRowsAndCausalRowsIgnoreLaterTokens) {
  BlockWorkload w;
  const auto p = w.make({{"batch", 2}, {"seq", 7}, {"hidden", 16}, {"heads", 4}, {"causal", 1}}, DType::f32);
  auto in = p->make_inputs(3);
  const Reference full = p->reference(in, 0);
  ASSERT_EQ(full.oracle, "fp64-cpu");
  ASSERT_EQ(full.value.size(), 2u * 7 * 16);
  const Reference some = p->reference(in, 3);
  EXPECT_EQ(some.oracle, "fp64-cpu-sampled-rows");
  ASSERT_EQ(some.index.size(), 3u * 16);
  for (std::size_t i = 0; i < some.index.size(); ++i) EXPECT_EQ(some.value[i], full.value[some.index[i]]);
  // A later token of sequence 0 changes: its first row stays, its last row moves.
  for (std::size_t e = 0; e < 16; ++e) store_from_float(DType::f32, in[0].data.data(), 5 * 16 + e, 3.0f);
  const Reference after = p->reference(in, 0);
  for (std::size_t e = 0; e < 16; ++e) EXPECT_EQ(after.value[e], full.value[e]);
  double moved = 0;
  for (std::size_t e = 0; e < 16; ++e) moved += std::abs(after.value[6 * 16 + e] - full.value[6 * 16 + e]);
  EXPECT_GT(moved, 1e-3);
}

TEST(LazyBackend, EveryWorkloadMatchesItsOracle) {
  const Backend* lazy = find_backend("assay-lazy-cpu");
  ASSERT_NE(lazy, nullptr);
  const std::vector<std::pair<std::string, Params>> shapes = {
      {"gemm", {{"m", 5}, {"n", 7}, {"k", 3}}},
      {"mlp", {{"batch", 3}, {"hidden", 8}}},
      {"attention", {{"b", 2}, {"h", 2}, {"s", 9}, {"d", 8}, {"causal", 0}}},
      {"attention", {{"b", 2}, {"h", 2}, {"s", 9}, {"d", 8}, {"causal", 1}}},
      {"block", {{"batch", 2}, {"seq", 5}, {"hidden", 16}, {"heads", 4}, {"causal", 0}}},
      {"block", {{"batch", 2}, {"seq", 5}, {"hidden", 16}, {"heads", 4}, {"causal", 1}}},
  };
  for (const auto& [name, params] : shapes)
    for (const DType t : {DType::f32, DType::f16}) {
      ASSERT_TRUE(lazy->supports(name, t));
      const auto p = find_workload(name)->make(params, t);
      const auto in = p->make_inputs(7);
      auto inst = lazy->instantiate(*p, in);
      inst->poison_output();
      inst->call(nullptr);
      const verify::Tolerance tol = t == DType::f32 ? verify::Tolerance{1e-5, 1e-5} : verify::Tolerance{2e-2, 2e-2};
      const auto rec = verify::check_output(inst->read_output(), p->reference(in, 0), tol);
      EXPECT_TRUE(rec.passed) << name << " " << dtype_name(t) << " " << p->shape_string() << ": max_abs "
                              << rec.max_abs << ", " << rec.first_failure;
    }
  EXPECT_FALSE(lazy->supports("gemm", DType::f8e4m3));
}

TEST(AttentionF8, QuantisedFromTheSameValuesWithDescalesAndTheOracleOnTheUnquantised) {
  AttentionWorkload w;
  for (const std::int64_t per_head : {0, 1})
    for (const std::int64_t outliers : {0, 1000}) {
      Params params{{"b", 2}, {"h", 3}, {"s", 40}, {"d", 16}, {"causal", 1}, {"outliers", outliers}};
      if (per_head) params["per_head_scales"] = 1;
      const auto made = w.make(params, DType::f8e4m3);
      const auto& p = dynamic_cast<const AttentionProblem&>(*made);
      const auto in = p.make_inputs(5);
      ASSERT_EQ(in.size(), 6u);
      EXPECT_EQ(in[0].dtype, DType::f8e4m3);
      EXPECT_EQ(in[3].numel(), per_head ? 6u : 1u);
      EXPECT_EQ(p.output_like().dtype, DType::bf16);
      for (int t = 0; t < 3; ++t) {
        const auto exact = p.values(5, t), deq = p.dequantised(in, t);
        const auto descale = to_floats(in[3 + t]);
        const std::size_t group = exact.size() / descale.size();
        for (std::size_t i = 0; i < exact.size(); ++i) {
          // e4m3 keeps 3 mantissa bits: within 2^-4 relative, or its subnormal step near zero.
          const double step = std::ldexp(1.0, -9) * descale[i / group];
          ASSERT_LE(std::fabs(deq[i] - exact[i]), std::fabs(exact[i]) / 16 + step)
              << "per_head " << per_head << " outliers " << outliers << " tensor " << t << " element " << i;
        }
      }
      // The same values as the 16-bit case draws (before its rounding).
      const auto f16 = w.make(params.count("per_head_scales") ? Params{{"b", 2}, {"h", 3}, {"s", 40}, {"d", 16},
                                                                        {"causal", 1}, {"outliers", outliers}}
                                                              : params,
                              DType::f16);
      const auto f16_in = f16->make_inputs(5);
      const auto q16 = to_floats(f16_in[0]), q = p.values(5, 0);
      for (std::size_t i = 0; i < q.size(); i += 97) EXPECT_NEAR(q16[i], q[i], std::fabs(q[i]) / 1024 + 1e-7);
      // The oracle is on those values, not on the quantised inputs.
      const Reference exact = p.oracle(in, 5, 0), given = p.reference(in, 0);
      double differ = 0;
      for (std::size_t i = 0; i < exact.value.size(); ++i) differ = std::max(differ, std::fabs(exact.value[i] - given.value[i]));
      EXPECT_GT(differ, 1e-4);
    }
  // Outliers exist at about the rate asked (16x the uniform range).
  const auto p = w.make({{"b", 4}, {"h", 8}, {"s", 256}, {"d", 64}, {"causal", 0}, {"outliers", 1000}}, DType::f16);
  const auto q = dynamic_cast<const AttentionProblem&>(*p).values(1, 0);
  std::size_t big = 0;
  for (float x : q) big += std::fabs(x) > 1.0f;
  EXPECT_NEAR(static_cast<double>(big) / q.size(), 1e-3 * 15.0 / 16, 2e-4);  // |16u| > 1 unless |u| < 1/16
  EXPECT_THROW(w.make({{"b", 1}, {"h", 1}, {"s", 8}, {"d", 8}, {"causal", 0}, {"per_head_scales", 1}}, DType::f16),
               InputError);
}

TEST(AttentionF8, HadamardIsOptionalAndOnlyForF8WithAPowerOfTwoD) {
  AttentionWorkload w;
  const Params base{{"b", 1}, {"h", 1}, {"s", 8}, {"d", 16}, {"causal", 0}};
  auto with = [&](std::int64_t d, std::int64_t hadamard) {
    Params p = base;
    p["d"] = d;
    p["hadamard"] = hadamard;
    return p;
  };
  EXPECT_THROW(w.make(with(16, 1), DType::f16), InputError);
  EXPECT_THROW(w.make(with(24, 1), DType::f8e4m3), InputError);
  EXPECT_THROW(w.make(with(16, 2), DType::f8e4m3), InputError);
  EXPECT_NO_THROW(w.make(with(24, 0), DType::f16));  // hadamard = 0 asks for nothing
  EXPECT_TRUE(w.param_optional("hadamard"));
  EXPECT_EQ(w.param_range("hadamard"), std::make_pair(std::int64_t{0}, std::int64_t{1}));
  // In params() only when set, so the case ids without it do not change.
  EXPECT_EQ(w.make(with(16, 0), DType::f8e4m3)->params(), base);
  EXPECT_EQ(w.make(with(16, 1), DType::f8e4m3)->params().at("hadamard"), 1);
}

TEST(AttentionF8, HadamardRotatesQAndKAndKeepsQKt) {
  AttentionWorkload w;
  const auto made = w.make(
      {{"b", 1}, {"h", 2}, {"s", 16}, {"d", 32}, {"causal", 0}, {"outliers", 20000}, {"hadamard", 1}}, DType::f8e4m3);
  const auto& p = dynamic_cast<const AttentionProblem&>(*made);
  const auto in = p.make_inputs(5);
  const auto q = p.values(5, 0), k = p.values(5, 1), v = p.values(5, 2);
  const auto dq = p.dequantised(in, 0), dk = p.dequantised(in, 1), dv = p.dequantised(in, 2);
  const std::size_t d = 32, s = 16;
  // Q is rotated (its elements are not the values') while V is only quantised.
  double q_moved = 0, v_moved = 0;
  for (std::size_t i = 0; i < q.size(); ++i) {
    q_moved = std::max(q_moved, std::fabs(double(dq[i]) - q[i]));
    v_moved = std::max(v_moved, std::fabs(double(dv[i]) - v[i]) - std::fabs(v[i]) / 16.0);
  }
  EXPECT_GT(q_moved, 0.5);
  EXPECT_LE(v_moved, 1e-3);
  // Every score of a head is the unrotated one, within the rounding of the two e4m3 factors.
  for (std::size_t bh = 0; bh < 2; ++bh)
    for (std::size_t i = 0; i < s; ++i)
      for (std::size_t j = 0; j < s; ++j) {
        const float* qi = &q[(bh * s + i) * d];
        const float* kj = &k[(bh * s + j) * d];
        const float* dqi = &dq[(bh * s + i) * d];
        const float* dkj = &dk[(bh * s + j) * d];
        double exact = 0, given = 0, bound = 0;
        for (std::size_t e = 0; e < d; ++e) {
          exact += double(qi[e]) * kj[e];
          given += double(dqi[e]) * dkj[e];
          bound += std::fabs(double(dqi[e]) * dkj[e]);
        }
        ASSERT_NEAR(given, exact, bound * 0.15 + 1e-3) << "head " << bh << " row " << i << " key " << j;
      }
  // One sign vector per seed, from the seed alone.
  const auto signs = p.hadamard_signs(5);
  EXPECT_EQ(signs, p.hadamard_signs(5));
  EXPECT_NE(signs, p.hadamard_signs(6));
  for (float x : signs) EXPECT_EQ(std::fabs(x), 1.0f);
  EXPECT_EQ(to_floats(p.make_inputs(5)[1]), to_floats(in[1]));
}

namespace {
// The rmse of the fp64 attention on the dequantised inputs against the oracle: the quantisation's error.
double quantisation_rmse(const Problem& p) {
  const auto in = p.make_inputs(1);
  const Reference given = p.reference(in, 0), exact = p.oracle(in, 1, 0);
  EXPECT_EQ(given.index, exact.index);
  double sq = 0;
  for (std::size_t i = 0; i < exact.value.size(); ++i) sq += std::pow(given.value[i] - exact.value[i], 2);
  return std::sqrt(sq / static_cast<double>(exact.value.size()));
}

// The quantisation rmse of the rotated inputs over the plain ones at 1000 ppm outliers, printed.
double hadamard_rmse_ratio(std::int64_t h, std::int64_t s, std::int64_t d) {
  AttentionWorkload w;
  Params params{{"b", 1}, {"h", h}, {"s", s}, {"d", d}, {"causal", 0}, {"outliers", 1000}};
  const double plain = quantisation_rmse(*w.make(params, DType::f8e4m3));
  params["hadamard"] = 1;
  const double rotated = quantisation_rmse(*w.make(params, DType::f8e4m3));
  std::printf("(1, %lld, %lld, %lld) f8e4m3 rmse at 1000 ppm outliers: plain %.3g, hadamard %.3g (%.2fx)\n",
              static_cast<long long>(h), static_cast<long long>(s), static_cast<long long>(d), plain, rotated, rotated / plain);
  return rotated / plain;
}
}  // namespace

// The rotation's accuracy gain, on the suite's shape and the same drawn values both ways. Issue
// 28 asks for at most half the plain rmse (FlashAttention-3: 9.1e-3 against 2.4e-2); measured
// here it is 0.62x at d = 64 and 0.57x at d = 128 (0.59x and 0.54x in the suite's cpu run): the rotation shrinks Q's and K's
// rounding about 4x, but V's, which it does not touch, is most of what is left
// (docs/kernels/attention.md, "Hadamard accuracy mode"). At this length the bound checks the gain is
// real, not the target (next test).
TEST(AttentionF8, HadamardCutsTheRmseOnOutliers) {
  for (std::int64_t d : {64, 128}) EXPECT_LT(hadamard_rmse_ratio(8, 512, d), 0.7) << "d = " << d;
}

// Issue 28's target (rotated rmse at most half the plain one) holds once a query row's outliers
// meet keys' in a channel often, about s*d*1e-6 times a row (the heads do not matter): at s = 2048
// (the suite's record: 0.43x at d = 64, 0.37x at d = 128 on assay's kernel, h = 8). Two heads keep
// it quick here.
TEST(AttentionF8, HadamardHalvesTheRmseAtLength) {
  for (std::int64_t d : {64, 128}) EXPECT_LT(hadamard_rmse_ratio(2, 2048, d), 0.5) << "d = " << d;
}

// device_bytes is the fused kernels' working set (Q, K, V, O; for f8e4m3 also V transposed with s
// padded to 128, and cuDNN's e4m3 O), not the unfused reference's s x s scores, which refused
// long-context cases on an 80 GB GPU.
TEST(Attention, DeviceBytesAreTheFusedKernelsWorkingSet) {
  const AttentionProblem f16(1, 16, 32768, 128, false, DType::f16);
  EXPECT_EQ(f16.device_bytes(), 4ull * 16 * 32768 * 128 * 2);
  const AttentionProblem f8(1, 2, 100, 64, false, DType::f8e4m3);
  const std::uint64_t n = 2 * 100 * 64;
  EXPECT_EQ(f8.device_bytes(), 3 * n + 2 * n + 3 * 4 + 2 * 128 * 64 + n);
}
