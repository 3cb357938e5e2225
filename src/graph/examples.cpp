#include "graph/examples.hpp"

#include <cmath>

#include "graph/error.hpp"
#include "graph/tensor.hpp"

namespace assay::graph {

namespace {

// Weights are seeded randn scaled to keep activations O(1): w * (1/sqrt(fan_in)).
// Its nodes carry the caller's line, as a front end's helper would pass its caller's site.
LazyTensor weight(Graph& g, const Shape& s, std::uint64_t seed, ElemType t, std::int64_t fan_in, Site site = Here::current()) {
  return mul(randn(g, s, seed, {t}, site), full(g, {}, 1.0 / std::sqrt(static_cast<double>(fan_in)), {t}, site), site);
}

LazyTensor mlp(Graph& g, LazyTensor x, std::int64_t hidden, ElemType t, std::uint64_t seed) {
  const LazyTensor w1 = weight(g, {4 * hidden, hidden}, seed, t, hidden);
  const LazyTensor b1 = randn(g, {4 * hidden}, seed + 1, {t});
  const LazyTensor w2 = weight(g, {hidden, 4 * hidden}, seed + 2, t, 4 * hidden);
  const LazyTensor b2 = randn(g, {hidden}, seed + 3, {t});
  return linear(gelu(linear(x, w1, b1), true), w2, b2);
}

Program block(const ExampleSize& s) {
  Graph g;
  const ElemType t = s.dtype;
  const std::int64_t b = s.batch, l = s.seq, h = s.hidden, nh = s.heads, d = h / nh;
  if (nh <= 0 || h % nh != 0) throw InputError("block: hidden " + std::to_string(h) + " is not a multiple of heads " + std::to_string(nh));
  const LazyTensor x = randn(g, {b, l, h}, 1, {t});
  const LazyTensor ln1 = layer_norm(x, {h}, ones(g, {h}, {t}), zeros(g, {h}, {t}));
  const auto heads = [&](LazyTensor y) { return permute(reshape(y, {b, l, nh, d}), {0, 2, 1, 3}); };
  const LazyTensor q = heads(linear(ln1, weight(g, {h, h}, 10, t, h)));
  const LazyTensor k = heads(linear(ln1, weight(g, {h, h}, 11, t, h)));
  const LazyTensor v = heads(linear(ln1, weight(g, {h, h}, 12, t, h)));
  const LazyTensor a = reshape(permute(scaled_dot_product_attention(q, k, v, true), {0, 2, 1, 3}), {b, l, h});
  const LazyTensor r1 = add(x, linear(a, weight(g, {h, h}, 13, t, h)));
  const LazyTensor ln2 = layer_norm(r1, {h}, ones(g, {h}, {t}), zeros(g, {h}, {t}));
  const LazyTensor out = add(r1, mlp(g, ln2, h, t, 20));
  return {std::move(g), {out.id}};
}

}  // namespace

const std::vector<std::string>& example_names() {
  static const std::vector<std::string> names{"mlp", "chain", "block"};
  return names;
}

Program make_example(std::string_view name, const ExampleSize& s) {
  if (name == "mlp") {
    Graph g;
    const LazyTensor x = randn(g, {s.batch, s.hidden}, 1, {s.dtype});
    const LazyTensor y = mlp(g, x, s.hidden, s.dtype, 10);
    return {std::move(g), {y.id}};
  }
  if (name == "chain") {
    Graph g;
    const LazyTensor x = randn(g, {s.n, s.n}, 1, {s.dtype});
    const LazyTensor y = sum(relu(matmul(x, x)));
    return {std::move(g), {y.id}};
  }
  if (name == "block") return block(s);
  throw InputError("no example graph '" + std::string(name) + "' (mlp, chain, block)");
}

}  // namespace assay::graph
