// The passes on graphs without a GPU: DCE, CSE, folding, fusion groups and their hashes, the
// memory plan, and the pipeline keeping results unchanged.
#include <gtest/gtest.h>

#include <cmath>

#include "graph/dump.hpp"
#include "graph/examples.hpp"
#include "graph/executor.hpp"
#include "graph/passes.hpp"
#include "graph/pipeline.hpp"

using namespace assay::graph;

namespace {

// Same values from the CPU executor before and after; with `rel`, equal within it (the epilogue
// pass rounds matmul + bias once where the unfused graph rounded after each node).
void expect_same_results(const Program& a, const Program& b, double rel = 0) {
  CpuExecutor ex;
  const auto va = ex.run(a.graph, a.outputs), vb = ex.run(b.graph, b.outputs);
  ASSERT_EQ(va.size(), vb.size());
  for (std::size_t i = 0; i < va.size(); ++i) {
    EXPECT_EQ(va[i].shape, vb[i].shape);
    if (rel == 0) {
      EXPECT_EQ(va[i].values, vb[i].values);
      continue;
    }
    ASSERT_EQ(va[i].values.size(), vb[i].values.size());
    for (std::size_t j = 0; j < va[i].values.size(); ++j)
      EXPECT_NEAR(va[i].values[j], vb[i].values[j], rel * (1 + std::abs(va[i].values[j]))) << "output " << i << " at " << j;
  }
}

}  // namespace

TEST(GraphPasses, DeadCodeElimination) {
  Graph g;
  auto x = randn(g, {4, 4}, 1);
  auto dead = exp(mul(x, x));
  (void)dead;
  auto y = relu(x);
  const Program p{g, {y.id}};
  const Program d = eliminate_dead_code(p);
  EXPECT_EQ(d.graph.size(), 2u);
  EXPECT_EQ(d.graph.node(d.outputs[0]).op, OpKind::relu);
  EXPECT_EQ(count_op(d.graph, OpKind::exp), 0u);
  expect_same_results(p, d);
}

TEST(GraphPasses, CommonSubexpressions) {
  Graph g;
  auto a = randn(g, {8}, 1), a2 = randn(g, {8}, 1), other = randn(g, {8}, 2);
  auto s1 = add(exp(a), other), s2 = add(exp(a2), other);  // the same computation twice
  auto z1 = zeros(g, {8}), z2 = zeros(g, {8});
  auto c1 = from_host(g, {2}, {1, 2}), c2 = from_host(g, {2}, {1, 2}), c3 = from_host(g, {2}, {1, 3});
  auto out = add(mul(s1, s2), add(z1, z2));
  const Program p{g, {out.id, c1.id, c2.id, c3.id}};
  const Program c = eliminate_common_subexpressions(p);
  EXPECT_EQ(count_op(c.graph, OpKind::randn), 2u);  // seeds 1 and 2: different seeds stay apart
  EXPECT_EQ(count_op(c.graph, OpKind::exp), 1u);
  EXPECT_EQ(count_op(c.graph, OpKind::zeros), 1u);
  EXPECT_EQ(count_op(c.graph, OpKind::constant), 2u);
  EXPECT_EQ(c.outputs[1], c.outputs[2]);
  EXPECT_NE(c.outputs[1], c.outputs[3]);
  EXPECT_EQ(c.graph.size(), p.graph.size() - 5);
  expect_same_results(p, c);
  // Same seed, different shape or dtype: different tensors.
  Graph h;
  randn(h, {8}, 1);
  randn(h, {4}, 1);
  randn(h, {8}, 1, {ElemType::f16});
  EXPECT_EQ(eliminate_common_subexpressions({h, {0, 1, 2}}).graph.size(), 3u);
}

TEST(GraphPasses, ConstantFolding) {
  Graph g;
  auto small = randn(g, {64, 64}, 3);  // 4096 elements: folded
  auto big = randn(g, {65, 64}, 4);    // 4160: stays a factory
  auto f = full(g, {4}, 2.5, {ElemType::bf16});
  auto out = sum(add(sum(small, {0}), sum(big, {0})));
  const Program p{g, {out.id, f.id}};
  const Program folded = fold_constants(p);
  EXPECT_EQ(folded.graph.node(small.id).op, OpKind::constant);
  EXPECT_EQ(folded.graph.node(big.id).op, OpKind::randn);
  EXPECT_EQ(folded.graph.node(f.id).op, OpKind::constant);
  EXPECT_EQ(*folded.graph.node(f.id).data, (std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f}));
  expect_same_results(p, folded);
}

TEST(GraphPasses, FusionGroupsChains) {
  Graph g;
  auto x = randn(g, {8, 16}, 1), b = randn(g, {16}, 2), w = randn(g, {16, 16}, 3);
  auto h = matmul(x, w);                      // not fusible
  auto y = sum(relu(add(h, b)), {1});         // add -> relu -> sum: one group
  auto z = exp(y);                            // after a reduction: a new group
  const Program p{g, {z.id}};
  const FusionPlan f = plan_fusion(p);
  ASSERT_EQ(f.groups.size(), 2u);
  EXPECT_EQ(f.groups[0].nodes.size(), 3u);
  EXPECT_EQ(f.groups[0].output(), y.id);
  EXPECT_EQ(f.groups[0].inputs, (std::vector<NodeId>{h.id, b.id}));
  EXPECT_EQ(f.group_of[h.id], -1);
  EXPECT_EQ(f.groups[1].nodes, (std::vector<NodeId>{z.id}));
  EXPECT_NE(f.groups[0].signature.find("(in0: f32[8,16], in1: f32[16]) -> f32[8]"), std::string::npos)
      << f.groups[0].signature;
  EXPECT_NE(f.groups[0].signature.find("t2 = sum{dims=[1]}(t1): f32[8]"), std::string::npos) << f.groups[0].signature;
  EXPECT_EQ(f.groups[0].kernel_name().size(), 6u + 16u);
}

TEST(GraphPasses, FusionStopsAtSharedValues) {
  Graph g;
  auto x = randn(g, {4}, 1);
  auto e = exp(x);
  auto a = relu(e), b = neg(e);  // e has two readers: it must be materialised
  auto out = add(a, b);
  const FusionPlan f = plan_fusion({g, {out.id}});
  EXPECT_EQ(f.groups[static_cast<std::size_t>(f.group_of[e.id])].output(), e.id);
  EXPECT_EQ(f.group_of[a.id], f.group_of[out.id]);  // add joins relu's chain
  EXPECT_NE(f.group_of[b.id], f.group_of[out.id]);
}

TEST(GraphPasses, FusionHashIsStructural) {
  // The same chain recorded in two graphs, at other ids and lines, hashes the same; another
  // shape, dtype or op does not.
  const auto chain = [](Shape s, ElemType t, bool tanh_form, int padding) {
    Graph g;
    for (int i = 0; i < padding; ++i) randn(g, {2}, static_cast<std::uint64_t>(i));
    auto x = randn(g, s, 9, {t});
    auto y = mean(gelu(mul(x, x), tanh_form), {-1});
    return plan_fusion({g, {y.id}}).groups.back();
  };
  const FusionGroup a = chain({4, 8}, ElemType::f32, true, 0), b = chain({4, 8}, ElemType::f32, true, 5);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.signature, b.signature);
  EXPECT_NE(a.hash, chain({4, 9}, ElemType::f32, true, 0).hash);
  EXPECT_NE(a.hash, chain({4, 8}, ElemType::f16, true, 0).hash);
  EXPECT_NE(a.hash, chain({4, 8}, ElemType::f32, false, 0).hash);
  // Pinned: a change of the signature's format changes every cache key, and should be seen.
  EXPECT_EQ(a.signature,
            "(in0: f32[4,8]) -> f32[4] { t0 = mul(in0, in0): f32[4,8]; t1 = gelu{tanh}(t0): f32[4,8]; "
            "t2 = mean{dims=[1]}(t1): f32[4]; }");
}

namespace {

// No two buffers whose lifetimes meet share bytes.
void expect_no_live_overlap(const Program& p, const MemoryPlan& m) {
  for (NodeId i = 0; i < p.graph.size(); ++i)
    for (NodeId j = i + 1; j < p.graph.size(); ++j) {
      const Slot &a = m.slots[i], &b = m.slots[j];
      if (a.base != i || b.base != j || a.buffer < 0 || b.buffer < 0 || a.bytes == 0 || b.bytes == 0) continue;
      const bool live_together = a.first <= b.last && b.first <= a.last;
      const bool bytes_overlap = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      EXPECT_FALSE(live_together && bytes_overlap) << "%" << i << " and %" << j;
    }
}

}  // namespace

TEST(GraphPasses, MemoryPlanReusesAndNeverOverlapsLiveBuffers) {
  Graph g;
  LazyTensor x = randn(g, {256, 256}, 1);
  for (int i = 0; i < 6; ++i) x = matmul(relu(x), randn(g, {256, 256}, static_cast<std::uint64_t>(i + 2)));
  auto v = transpose(x, 0, 1);  // a view: aliases x's buffer, extends its life
  auto out = sum(v);
  const Program p{g, {out.id}};
  const MemoryPlan m = plan_memory(p);
  EXPECT_LT(m.planned_bytes, m.naive_bytes);
  EXPECT_LE(m.peak_live_bytes, m.planned_bytes);
  EXPECT_EQ(m.slots[v.id].buffer, m.slots[x.id].buffer);
  EXPECT_EQ(m.slots[v.id].offset, m.slots[x.id].offset);
  EXPECT_EQ(m.slots[v.id].bytes, 0);
  EXPECT_GE(m.slots[x.id].last, out.id);
  expect_no_live_overlap(p, m);
  // With fusion, values inside a group take no buffer.
  const FusionPlan f = plan_fusion(p);
  const MemoryPlan mf = plan_memory(p, &f);
  EXPECT_LE(mf.naive_bytes, m.naive_bytes);
  expect_no_live_overlap(p, mf);
}

// Constants live outside the arena (the executor uploads them, or reads the caller's), an empty
// value holds no bytes, and a small value does not take a freed buffer over twice its size (it
// would hold it to its end and push the next large value into a new one).
TEST(GraphPasses, MemoryPlanLeavesConstantsOutAndFitsBuffers) {
  Graph g;
  auto w = randn(g, {1024, 1024}, 1);                 // 4 MiB, freed after its matmul
  auto x = matmul(randn(g, {8, 1024}, 2), w);          // 32 KiB
  auto c = from_host(g, {8, 1024}, std::vector<float>(8 * 1024, 0.5f));
  auto small = relu(add(x, c));                        // 32 KiB: must not take w's 4 MiB
  auto big = randn(g, {1024, 1024}, 3);                // 4 MiB: takes w's buffer
  auto y = matmul(small, big);
  auto empty = relu(slice(x, 0, 0, 0));                // [0, 1024]
  const Program p{g, {y.id, empty.id}};
  const MemoryPlan m = plan_memory(p);
  EXPECT_EQ(m.slots[c.id].buffer, -1);
  EXPECT_EQ(m.slots[big.id].buffer, m.slots[w.id].buffer);
  EXPECT_NE(m.slots[small.id].buffer, m.slots[w.id].buffer);
  EXPECT_EQ(m.buffer_bytes[static_cast<std::size_t>(m.slots[empty.id].buffer)], 0);
  EXPECT_EQ(m.planned_bytes, m.peak_live_bytes);
  expect_no_live_overlap(p, m);
}

TEST(GraphPasses, PipelineOnExamplesKeepsResults) {
  for (const std::string& name : example_names()) {
    ExampleSize s;
    s.batch = 2, s.hidden = 8, s.seq = 3, s.heads = 2, s.n = 6;
    const Program p = make_example(name, s);
    const PipelineResult r = run_pipeline(p);
    ASSERT_GE(r.records.size(), 5u);
    EXPECT_EQ(r.records[0].name, "dce");
    EXPECT_FALSE(r.fusion.groups.empty()) << name;
    EXPECT_LE(r.memory.planned_bytes, r.memory.naive_bytes) << name;
    expect_no_live_overlap(r.program, r.memory);
    expect_same_results(p, r.program, 1e-6);
  }
}

TEST(GraphPasses, DumpNamesEveryNode) {
  ExampleSize s;
  s.n = 4;
  const Program p = make_example("chain", s);
  const std::string d = dump_program(p);
  EXPECT_NE(d.find("%0 = randn{seed=1}() -> f32[4,4] cpu  @ examples.cpp:"), std::string::npos) << d;
  EXPECT_NE(d.find("%1 = matmul(%0, %0) -> f32[4,4] cpu"), std::string::npos) << d;
  EXPECT_NE(d.find("%3 = sum{dims=[0,1]}(%2) -> f32[] cpu"), std::string::npos) << d;
  EXPECT_NE(d.find("outputs: %3"), std::string::npos) << d;
}
