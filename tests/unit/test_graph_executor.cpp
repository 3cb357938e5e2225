// The CPU reference executor against double-precision references computed here, op by op.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/dtype.hpp"
#include "graph/error.hpp"
#include "graph/executor.hpp"
#include "graph/random.hpp"

using namespace assay::graph;

namespace {

std::vector<float> iota(std::int64_t n, float scale = 0.25f, float shift = -1.0f) {
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = shift + scale * static_cast<float>(i % 13) - 0.1f * static_cast<float>(i % 3);
  return v;
}

LazyTensor data(Graph& g, const Shape& s, float scale = 0.25f, float shift = -1.0f) {
  return from_host(g, s, iota(s.numel(), scale, shift));
}

// Every value within a relative 1e-6 (fp32 rounding of a double reference).
void expect_near(const HostValue& got, const std::vector<double>& want, double tol = 1e-6) {
  ASSERT_EQ(got.values.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got.values[i], want[i], tol * (1 + std::abs(want[i]))) << "at " << i;
}

std::vector<double> in64(const LazyTensor& t) {
  const auto v = materialize(t).values;
  return {v.begin(), v.end()};
}

}  // namespace

TEST(CpuExecutor, FactoriesAreDeterministic) {
  Graph g;
  auto r = randn(g, {1000}, 42);
  const HostValue v = materialize(r);
  double mean = 0, var = 0;
  for (float x : v.values) mean += x;
  mean /= 1000;
  for (float x : v.values) var += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 0.0, 0.15);
  EXPECT_NEAR(var / 1000, 1.0, 0.15);
  EXPECT_FLOAT_EQ(v.values[7], static_cast<float>(randn_value(42, 7)));
  EXPECT_EQ(materialize(randn(g, {1000}, 42)).values, v.values);
  EXPECT_NE(materialize(randn(g, {1000}, 43)).values, v.values);
  EXPECT_EQ(materialize(full(g, {2}, 1.5)).values, (std::vector<float>{1.5f, 1.5f}));
  // f16 and bf16 values are rounded with core's exact conversions.
  const auto h = materialize(full(g, {1}, 0.1, {ElemType::f16})).values[0];
  EXPECT_EQ(h, assay::f16_bits_to_float(assay::float_to_f16_bits(0.1f)));
  const auto b = materialize(from_host(g, {1}, {1.00390625f}, {ElemType::bf16})).values[0];
  EXPECT_EQ(b, 1.0f);  // ties to even
}

TEST(CpuExecutor, ElementwiseWithBroadcast) {
  Graph g;
  auto a = data(g, {2, 3}), b = data(g, {3}, 0.5f, 0.75f);
  const auto av = in64(a), bv = in64(b);
  std::vector<double> want(6);
  for (int i = 0; i < 6; ++i) want[i] = av[i] + bv[i % 3];
  expect_near(materialize(add(a, b)), want);
  for (int i = 0; i < 6; ++i) want[i] = av[i] - bv[i % 3];
  expect_near(materialize(sub(a, b)), want);
  for (int i = 0; i < 6; ++i) want[i] = av[i] * bv[i % 3];
  expect_near(materialize(mul(a, b)), want);
  for (int i = 0; i < 6; ++i) want[i] = av[i] / bv[i % 3];
  expect_near(materialize(div(a, b)), want);
  const auto unary = [&](LazyTensor t, auto f) {
    std::vector<double> w(av.size());
    for (std::size_t i = 0; i < av.size(); ++i) w[i] = f(av[i]);
    expect_near(materialize(t), w);
  };
  auto pos = data(g, {2, 3}, 0.5f, 0.25f);
  const auto pv = in64(pos);
  unary(neg(a), [](double x) { return -x; });
  unary(exp(a), [](double x) { return std::exp(x); });
  expect_near(materialize(log(pos)), {std::log(pv[0]), std::log(pv[1]), std::log(pv[2]), std::log(pv[3]), std::log(pv[4]), std::log(pv[5])});
  expect_near(materialize(sqrt(pos)), {std::sqrt(pv[0]), std::sqrt(pv[1]), std::sqrt(pv[2]), std::sqrt(pv[3]), std::sqrt(pv[4]), std::sqrt(pv[5])});
  unary(relu(a), [](double x) { return x > 0 ? x : 0; });
  unary(sigmoid(a), [](double x) { return 1 / (1 + std::exp(-x)); });
  unary(tanh(a), [](double x) { return std::tanh(x); });
  unary(gelu(a), [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); });
  unary(gelu(a, true), [](double x) {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  });
  // gelu's two forms differ (by up to ~1e-3), so the flag reaches the kernel.
  EXPECT_NE(materialize(gelu(a)).values, materialize(gelu(a, true)).values);
  auto cond = from_host(g, {3}, {1, 0, 1}, {ElemType::boolean});
  for (int i = 0; i < 6; ++i) want[i] = (i % 3 != 1) ? av[i] : bv[i % 3];
  expect_near(materialize(where(cond, a, b)), want);
  const auto c = materialize(cast(a, ElemType::f16));
  for (std::size_t i = 0; i < 6; ++i)
    EXPECT_EQ(c.values[i], assay::f16_bits_to_float(assay::float_to_f16_bits(static_cast<float>(av[i]))));
  const auto bools = materialize(cast(a, ElemType::boolean)).values;
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(bools[i], av[i] != 0 ? 1.0f : 0.0f);
}

TEST(CpuExecutor, MatmulBmmLinear) {
  Graph g;
  auto a = data(g, {2, 3, 4}), b = data(g, {4, 5}, 0.125f, -0.5f);  // b broadcast over the batch
  const auto av = in64(a), bv = in64(b);
  std::vector<double> want(2 * 3 * 5, 0.0);
  for (int bi = 0; bi < 2; ++bi)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 4; ++k) want[(bi * 3 + i) * 5 + j] += av[(bi * 3 + i) * 4 + k] * bv[k * 5 + j];
  expect_near(materialize(matmul(a, b)), want);
  auto b3 = data(g, {2, 4, 5}, 0.1f, 0.3f);
  const auto b3v = in64(b3);
  std::fill(want.begin(), want.end(), 0.0);
  for (int bi = 0; bi < 2; ++bi)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j)
        for (int k = 0; k < 4; ++k) want[(bi * 3 + i) * 5 + j] += av[(bi * 3 + i) * 4 + k] * b3v[(bi * 4 + k) * 5 + j];
  expect_near(materialize(bmm(a, b3)), want);
  auto w = data(g, {6, 4}, 0.2f, -0.6f), bias = data(g, {6}, 1.0f, -2.0f);
  const auto wv = in64(w), biasv = in64(bias);
  std::vector<double> lin(2 * 3 * 6);
  for (int r = 0; r < 6; ++r)
    for (int o = 0; o < 6; ++o) {
      double s = biasv[o];
      for (int k = 0; k < 4; ++k) s += av[r * 4 + k] * wv[o * 4 + k];
      lin[r * 6 + o] = s;
    }
  expect_near(materialize(linear(a, w, bias)), lin);
  for (int r = 0; r < 6; ++r)
    for (int o = 0; o < 6; ++o) lin[r * 6 + o] -= biasv[o];
  expect_near(materialize(linear(a, w)), lin);
  auto m = mm(data(g, {2, 2}), data(g, {2, 2}));
  EXPECT_EQ(materialize(m).shape, (Shape{2, 2}));
}

TEST(CpuExecutor, Reductions) {
  Graph g;
  auto a = data(g, {2, 3, 4});
  const auto av = in64(a);
  std::vector<double> s1(2 * 4, 0.0), mx(2 * 4, -1e300);
  double total = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) {
        const double x = av[(i * 3 + j) * 4 + k];
        s1[i * 4 + k] += x;
        mx[i * 4 + k] = std::max(mx[i * 4 + k], x);
        total += x;
      }
  expect_near(materialize(sum(a, {1})), s1);
  EXPECT_EQ(materialize(sum(a, {1}, true)).shape, (Shape{2, 1, 4}));
  expect_near(materialize(sum(a, {1}, true)), s1);
  expect_near(materialize(max(a, {-2})), mx);
  expect_near(materialize(sum(a)), {total});
  expect_near(materialize(mean(a)), {total / 24});
  std::vector<double> m1 = s1;
  for (auto& x : m1) x /= 3;
  expect_near(materialize(mean(a, {1})), m1);
}

TEST(CpuExecutor, SoftmaxLogSoftmaxLayerNorm) {
  Graph g;
  auto a = data(g, {3, 5});
  const auto av = in64(a);
  // softmax over dim 0 (a non-trailing dim) and dim 1
  std::vector<double> sm(15), lsm(15), sm0(15);
  for (int r = 0; r < 3; ++r) {
    double mx = -1e300, z = 0;
    for (int j = 0; j < 5; ++j) mx = std::max(mx, av[r * 5 + j]);
    for (int j = 0; j < 5; ++j) z += std::exp(av[r * 5 + j] - mx);
    for (int j = 0; j < 5; ++j) {
      sm[r * 5 + j] = std::exp(av[r * 5 + j] - mx) / z;
      lsm[r * 5 + j] = av[r * 5 + j] - mx - std::log(z);
    }
  }
  for (int c = 0; c < 5; ++c) {
    double z = 0;
    for (int r = 0; r < 3; ++r) z += std::exp(av[r * 5 + c]);
    for (int r = 0; r < 3; ++r) sm0[r * 5 + c] = std::exp(av[r * 5 + c]) / z;
  }
  expect_near(materialize(softmax(a, -1)), sm);
  expect_near(materialize(log_softmax(a, 1)), lsm);
  expect_near(materialize(softmax(a, 0)), sm0);
  auto w = data(g, {5}, 0.3f, 0.5f), b = data(g, {5}, 0.1f, -0.2f);
  const auto wv = in64(w), bv = in64(b);
  std::vector<double> ln(15), lnw(15);
  for (int r = 0; r < 3; ++r) {
    double mean = 0, var = 0;
    for (int j = 0; j < 5; ++j) mean += av[r * 5 + j] / 5;
    for (int j = 0; j < 5; ++j) var += (av[r * 5 + j] - mean) * (av[r * 5 + j] - mean) / 5;
    for (int j = 0; j < 5; ++j) {
      ln[r * 5 + j] = (av[r * 5 + j] - mean) / std::sqrt(var + 1e-3);
      lnw[r * 5 + j] = ln[r * 5 + j] * wv[j] + bv[j];
    }
  }
  expect_near(materialize(layer_norm(a, {5}, std::nullopt, std::nullopt, 1e-3)), ln, 1e-5);
  expect_near(materialize(layer_norm(a, {5}, w, b, 1e-3)), lnw, 1e-5);
  // over two trailing dims: the whole [3,5] is one row
  const auto all = materialize(layer_norm(a, {3, 5}));
  double m = 0;
  for (float x : all.values) m += x;
  EXPECT_NEAR(m / 15, 0.0, 1e-6);
}

TEST(CpuExecutor, AttentionCausalAndNot) {
  Graph g;
  const int B = 2, L = 3, S = 4, E = 2, Ev = 3;
  auto q = data(g, {B, L, E}), k = data(g, {B, S, E}, 0.3f, -0.7f), v = data(g, {B, S, Ev}, 0.2f, 0.1f);
  const auto qv = in64(q), kv = in64(k), vv = in64(v);
  for (bool causal : {false, true}) {
    const double scale = causal ? 0.5 : 1 / std::sqrt(2.0);
    std::vector<double> want(B * L * Ev, 0.0);
    for (int b = 0; b < B; ++b)
      for (int i = 0; i < L; ++i) {
        std::vector<double> p(S, 0.0);
        double z = 0;
        for (int j = 0; j < S; ++j) {
          if (causal && j > i) continue;
          double s = 0;
          for (int e = 0; e < E; ++e) s += qv[(b * L + i) * E + e] * kv[(b * S + j) * E + e];
          z += p[j] = std::exp(s * scale);
        }
        for (int e = 0; e < Ev; ++e)
          for (int j = 0; j < S; ++j) want[(b * L + i) * Ev + e] += p[j] / z * vv[(b * S + j) * Ev + e];
      }
    const auto got = causal ? materialize(scaled_dot_product_attention(q, k, v, true, 0.5))
                            : materialize(scaled_dot_product_attention(q, k, v));
    expect_near(got, want);
  }
}

// Empty head dim or no keys, as torch's math path: E = 0 makes every score 0 (each output row the
// mean of V's rows); S = 0 makes each output row an empty sum (zeros), not 0/0.
TEST(CpuExecutor, AttentionWithAnEmptyHeadDimOrNoKeys) {
  Graph g;
  auto v = data(g, {2, 3, 4});
  const auto vv = in64(v);
  const auto got = materialize(scaled_dot_product_attention(zeros(g, {2, 5, 0}), zeros(g, {2, 3, 0}), v, false, 1.0));
  ASSERT_EQ(got.shape, (Shape{2, 5, 4}));
  std::vector<double> want;
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 5; ++i)
      for (int e = 0; e < 4; ++e) want.push_back((vv[(b * 3) * 4 + e] + vv[(b * 3 + 1) * 4 + e] + vv[(b * 3 + 2) * 4 + e]) / 3);
  expect_near(got, want);
  const auto none = materialize(scaled_dot_product_attention(ones(g, {1, 2, 4}), ones(g, {1, 0, 4}), ones(g, {1, 0, 3})));
  expect_near(none, std::vector<double>(6, 0.0));
}

// No input features: each output row is the bias (rows were counted as numel / 0 -> 0).
TEST(CpuExecutor, LinearWithNoInputFeaturesIsItsBias) {
  Graph g;
  const auto got = materialize(linear(zeros(g, {2, 0}), zeros(g, {3, 0}), data(g, {3})));
  const auto b = in64(data(g, {3}));
  expect_near(got, {b[0], b[1], b[2], b[0], b[1], b[2]});
}

// An element count past int64 (2^32 x 2^32 wrapped to 0) is refused where it is recorded.
TEST(CpuExecutor, ElementCountsPastInt64AreRefused) {
  Graph g;
  EXPECT_THROW(ones(g, {std::int64_t{1} << 32, std::int64_t{1} << 32}), GraphError);
  auto one = ones(g, {1, 1});
  EXPECT_THROW(expand(one, {std::int64_t{1} << 32, std::int64_t{1} << 32}), GraphError);
  EXPECT_THROW(expand(one, {-5, 1}), GraphError);  // a negative size, not -1
}

TEST(CpuExecutor, Views) {
  Graph g;
  auto a = data(g, {2, 3, 4});
  const auto av = in64(a);
  const auto t = materialize(transpose(a, 0, 2));  // [4,3,2]
  EXPECT_EQ(t.shape, (Shape{4, 3, 2}));
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(t.values[(k * 3 + j) * 2 + i], av[(i * 3 + j) * 4 + k]);
  const auto p = materialize(permute(a, {1, 2, 0}));  // [3,4,2]
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) EXPECT_EQ(p.values[(j * 4 + k) * 2 + i], av[(i * 3 + j) * 4 + k]);
  const auto s = materialize(slice(a, 2, 1, 4, 2));  // k = 1, 3
  EXPECT_EQ(s.shape, (Shape{2, 3, 2}));
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(s.values[r * 2], av[r * 4 + 1]);
    EXPECT_EQ(s.values[r * 2 + 1], av[r * 4 + 3]);
  }
  const auto e = materialize(expand(slice(a, 0, 0, 1), {3, 2, 3, 4}));  // [1,3,4] -> [3,2,3,4]
  for (int i = 0; i < 72; ++i) EXPECT_EQ(e.values[i], av[i % 12]);
  EXPECT_EQ(materialize(reshape(a, {4, -1})).values, materialize(a).values);
}

TEST(CpuExecutor, ChainKnownValue) {
  // relu(x @ x).sum() on x = ones(n, n): every product is n, the sum n^3.
  for (std::int64_t n : {1, 7, 64}) {
    Graph g;
    auto x = ones(g, {n, n});
    EXPECT_EQ(materialize(sum(relu(matmul(x, x)))).values[0], static_cast<float>(n * n * n));
  }
  // and with randn, against a double reference
  Graph g;
  auto x = randn(g, {16, 16}, 5);
  const auto xv = in64(x);
  double total = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double s = 0;
      for (int k = 0; k < 16; ++k) s += xv[i * 16 + k] * xv[k * 16 + j];
      total += std::max(0.0, static_cast<double>(static_cast<float>(s)));
    }
  expect_near(materialize(sum(relu(matmul(x, x)))), {total}, 1e-5);
}

TEST(CpuExecutor, RunsOnlyWhatOutputsNeedAndManyOutputs) {
  Graph g;
  auto a = data(g, {4});
  auto unused = log(neg(ones(g, {4})));  // NaN if it ran; it must not matter
  (void)unused;
  auto b = exp(a), c = add(a, b);
  CpuExecutor ex;
  const auto out = ex.run(g, {c.id, b.id, a.id});
  ASSERT_EQ(out.size(), 3u);
  for (int i = 0; i < 4; ++i) EXPECT_FLOAT_EQ(out[0].values[i], out[2].values[i] + out[1].values[i]);
  EXPECT_EQ(ex.name(), "cpu-reference");
}

TEST(CpuExecutor, HalfPrecisionRoundsEveryNode) {
  Graph g;
  auto a = data(g, {8}), b = cast(a, ElemType::bf16);
  const auto r = materialize(mul(b, b));
  const auto av = materialize(b).values;
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(r.values[i], assay::bf16_bits_to_float(assay::float_to_bf16_bits(av[i] * av[i])));
  EXPECT_EQ(r.dtype, ElemType::bf16);
}
