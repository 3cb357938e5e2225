// The GPU executor's host-side parts, without a GPU: strided layouts of views, the epilogue
// pass, and the fusion-group code generator, whose every kernel is compiled here by NVRTC for
// sm_90 (NVRTC needs no device) so that a generator bug fails in CI, not on the GPU machine.
#include <gtest/gtest.h>

#include "graph/codegen_cuda.hpp"
#include "graph/executor.hpp"
#include "graph/layout.hpp"
#include "graph/passes.hpp"
#include "graph/pipeline.hpp"
#include "graph/prefetch_slab.hpp"
#include "graph/tensor.hpp"
#include "graph_gpu/kernel_cache.hpp"

using namespace assay::graph;

namespace {

// Every fusion group of the program after the passes, generated with its inputs' layouts.
std::vector<GeneratedKernel> kernels_of(const Program& p) {
  const PipelineResult r = run_pipeline(p);
  const Layouts lay = plan_layouts(r.program.graph);
  std::vector<GeneratedKernel> out;
  for (const FusionGroup& grp : r.fusion.groups) {
    std::vector<Layout> in;
    for (NodeId x : grp.inputs) in.push_back(lay.of[x]);
    out.push_back(generate_kernel(r.program.graph, grp, in));
  }
  return out;
}

}  // namespace

TEST(GraphLayout, ViewsComposeAsStrides) {
  Graph g;
  auto a = randn(g, {4, 6, 10}, 1);
  auto p = permute(a, {2, 0, 1});
  auto s = slice(p, 0, 1, 9, 3);
  auto r1 = reshape(a, {24, 10});
  auto r2 = reshape(s, {3, 24});
  const Layouts l = plan_layouts(g);
  EXPECT_TRUE(l.of[a.id].contiguous());
  EXPECT_EQ(l.of[p.id].str(), "[10,4,6]:[1,60,10]+0");
  EXPECT_EQ(l.of[s.id].str(), "[3,4,6]:[3,60,10]+1");
  EXPECT_EQ(l.of[s.id].base, a.id);
  EXPECT_TRUE(l.of[r1.id].contiguous());
  EXPECT_EQ(l.of[r1.id].base, a.id);
  EXPECT_TRUE(l.copied[r2.id]);  // a reshape of a strided view cannot be strides: copied
  EXPECT_FALSE(l.copied[r1.id]);
  const auto st = broadcast_read_strides(contiguous_layout(0, Shape{6, 1}), Shape{2, 6, 5});
  EXPECT_EQ(st[0], 0);
  EXPECT_EQ(st[1], 1);
  EXPECT_EQ(st[2], 0);
}

TEST(GraphLayout, AnExpandOwnsItsBufferAndInputsBoundByACallerStayDistinct) {
  Graph g;
  auto x = randn(g, {1, 64}, 1);
  auto e = expand(x, {256, 64});  // written out by its group: more elements than its input
  auto y = matmul(e, randn(g, {64, 8}, 2));
  const Program p{g, {y.id, e.id}};
  const PipelineResult r = run_pipeline(p);
  for (NodeId i = 0; i < r.program.graph.size(); ++i)
    if (r.program.graph.node(i).op == OpKind::expand) {
      EXPECT_EQ(r.memory.slots[i].base, i);
      EXPECT_EQ(r.memory.slots[i].bytes, 256 * 64 * 4);
    }
  // Two inputs of equal values: merged by CSE unless the caller binds them to buffers of its own.
  Graph h;
  auto a = from_host(h, {2}, {1, 2}), b = from_host(h, {2}, {1, 2});
  const NodeId s = add(a, b).id;
  const Program q{h, {s}};
  EXPECT_EQ(count_op(eliminate_common_subexpressions(q).graph, OpKind::constant), 1u);
  const std::vector<const void*> distinct = {h.node(a.id).data.get(), h.node(b.id).data.get()};
  EXPECT_EQ(count_op(eliminate_common_subexpressions(q, distinct).graph, OpKind::constant), 2u);
  // Nor is a literal recorded after a caller-bound input merged into it: the bound values replace
  // the input's at run time, and the literal's must stay.
  const std::vector<const void*> first_only = {h.node(a.id).data.get()};
  const Program merged = eliminate_common_subexpressions(q, first_only);
  EXPECT_EQ(count_op(merged.graph, OpKind::constant), 2u);
  const Node& sum_node = merged.graph.node(merged.outputs[0]);
  EXPECT_NE(sum_node.inputs[0], sum_node.inputs[1]);
}

// The L2 prefetch's slab (docs/lazy.md, "L2 prefetch across steps"): the leading part of the
// contraction dim for every output column, in both layouts a weight comes in.
TEST(GraphPrefetch, TheLeadingContractionSlabOfEitherLayout) {
  // linear's weight [out = 2048, in = 8192] read as B [k = in, n = out]: k contiguous, so the
  // first bytes of each of the 2048 rows (16 KiB apart).
  Layout wt = contiguous_layout(0, Shape{2048, 8192});
  std::swap(wt.shape[0], wt.shape[1]);
  std::swap(wt.strides[0], wt.strides[1]);
  PrefetchSlab p = leading_contraction_slab(wt, 0, 2, 4 << 20);
  EXPECT_EQ(p.rows, 2048);
  EXPECT_EQ(p.row_stride_bytes, 8192 * 2);
  EXPECT_EQ(p.row_lines, 16);  // 4 MiB / 2048 rows = 2 KiB each
  EXPECT_EQ(p.bytes(), 4 << 20);
  // B [k, n] row-major: k outer, so its leading rows, the operand's first bytes.
  p = leading_contraction_slab(contiguous_layout(0, Shape{8192, 2048}), 0, 2, 4 << 20);
  EXPECT_EQ(p.rows, 1);
  EXPECT_EQ(p.row_lines, (4 << 20) / 128);
  // A [m, k]: the contraction is its last dim.
  p = leading_contraction_slab(contiguous_layout(0, Shape{64, 2048}), 1, 2, 1 << 20);
  EXPECT_EQ(p.rows, 64);
  EXPECT_EQ(p.row_lines, 2048 * 2 / 128);  // the whole operand (256 KiB) is under the budget
  // A budget larger than the operand takes it all; rows never exceed the budget's lines.
  p = leading_contraction_slab(wt, 0, 2, 1 << 30);
  EXPECT_EQ(p.bytes(), 2048ll * 8192 * 2);
  p = leading_contraction_slab(wt, 0, 2, 1024 * 128);
  EXPECT_EQ(p.rows, 1024);
  EXPECT_EQ(p.row_lines, 1);
  // Leading dims of size 1 are fine; a batch, a strided (not dense) view, an empty operand, a
  // dim that is not the matrix's, and a budget under one line get nothing.
  EXPECT_EQ(leading_contraction_slab(contiguous_layout(0, Shape{1, 512, 512}), 1, 2, 1 << 20).rows, 1);
  EXPECT_EQ(leading_contraction_slab(contiguous_layout(0, Shape{2, 512, 512}), 1, 2, 1 << 20).rows, 0);
  Layout strided = contiguous_layout(0, Shape{512, 512});
  strided.strides[0] = 1024;  // every other row of a wider buffer
  EXPECT_EQ(leading_contraction_slab(strided, 0, 2, 1 << 20).rows, 0);
  EXPECT_EQ(leading_contraction_slab(contiguous_layout(0, Shape{0, 512}), 0, 2, 1 << 20).rows, 0);
  EXPECT_EQ(leading_contraction_slab(contiguous_layout(0, Shape{1, 512, 512}), 0, 2, 1 << 20).rows, 0);
  EXPECT_EQ(leading_contraction_slab(contiguous_layout(0, Shape{512, 512}), 0, 2, 127).rows, 0);
  Layout flipped = contiguous_layout(0, Shape{512, 512});
  flipped.strides[0] = -512;  // dense, but element 0 is not its first byte
  EXPECT_EQ(leading_contraction_slab(flipped, 0, 2, 1 << 20).rows, 0);
  EXPECT_EQ(flipped.span(), 512 * 512);  // dense either way: refused for the sign alone
  EXPECT_EQ(strided.span(), 511 * 1024 + 512);
  EXPECT_EQ(contiguous_layout(0, Shape{0, 512}).span(), 0);
  // Rows shorter than a line (k = 32 f16, 64 bytes): the operand's leading bytes, not one line a row.
  Layout narrow = contiguous_layout(0, Shape{4096, 32});
  std::swap(narrow.shape[0], narrow.shape[1]);
  std::swap(narrow.strides[0], narrow.strides[1]);
  p = leading_contraction_slab(narrow, 0, 2, 64 * 128);
  EXPECT_EQ(p.rows, 1);
  EXPECT_EQ(p.row_lines, 64);
}

TEST(GraphEpilogue, MatmulBiasActivationBecomesOneLinear) {
  Graph g;
  auto x = randn(g, {2, 8, 16}, 1), w = randn(g, {16, 12}, 2), b = randn(g, {12}, 3);
  auto y = gelu(add(matmul(x, w), b), true);
  auto z = relu(add(randn(g, {1, 12}, 4), matmul(x, w)));  // bias first, [1, n]
  auto keep = gelu(add(matmul(x, w), b));                   // erf gelu: only the bias is absorbed
  const Program p{g, {y.id, z.id, keep.id}};
  const Program f = fuse_epilogues(p);
  EXPECT_EQ(count_op(f.graph, OpKind::matmul), 0u);
  EXPECT_EQ(count_op(f.graph, OpKind::linear), 3u);
  EXPECT_EQ(count_op(f.graph, OpKind::gelu), 1u);  // the erf one
  EXPECT_EQ(f.graph.node(f.outputs[0]).attrs.flags, kHasBias | kGelu | kTanh);
  EXPECT_EQ(f.graph.node(f.outputs[1]).attrs.flags, kHasBias | kRelu);
  const auto before = CpuExecutor().run(p.graph, p.outputs), after = CpuExecutor().run(f.graph, f.outputs);
  for (std::size_t i = 0; i < before.size(); ++i)
    for (std::size_t j = 0; j < before[i].values.size(); ++j)
      EXPECT_NEAR(before[i].values[j], after[i].values[j], 1e-5 * (1 + std::abs(before[i].values[j])));
}

TEST(GraphEpilogue, ValuesWithOtherReadersAreNotAbsorbed) {
  Graph g;
  auto x = randn(g, {8, 16}, 1), w = randn(g, {16, 12}, 2), b = randn(g, {12}, 3);
  auto mm = matmul(x, w);
  auto y = add(mm, b);
  auto also = exp(mm);  // the matmul is read twice
  const Program f = fuse_epilogues(Program{g, {y.id, also.id}});
  EXPECT_EQ(count_op(f.graph, OpKind::linear), 0u);
  auto bmm = matmul(randn(g, {3, 8, 16}, 4), randn(g, {3, 16, 12}, 5));  // batched B: no epilogue
  const NodeId out = add(bmm, b).id;
  const Program f2 = fuse_epilogues(Program{g, {out}});
  EXPECT_EQ(count_op(f2.graph, OpKind::linear), 0u);
}

TEST(GraphCodegen, KeysFollowStructureAndLayouts) {
  const auto make = [](bool transposed) {
    Graph g;
    auto a = randn(g, {64, 64}, 7);
    auto in = transposed ? transpose(a, 0, 1) : a;
    const NodeId out = relu(add(in, randn(g, {64}, 8))).id;  // recorded before the graph is copied
    return Program{g, {out}};
  };
  const auto k1 = kernels_of(make(false)), k2 = kernels_of(make(false)), k3 = kernels_of(make(true));
  ASSERT_EQ(k1.size(), 1u);
  EXPECT_EQ(k1[0].key, k2[0].key);
  EXPECT_NE(k1[0].key, k3[0].key);  // the same chain over a transposed view is another kernel
  // A contiguous input is read 16 bytes at a time (4 floats a thread); a transposed one by index.
  EXPECT_NE(k1[0].source.find("reinterpret_cast<const uint4*>(p0)[v]"), std::string::npos) << k1[0].source;
  EXPECT_EQ(k3[0].source.find("reinterpret_cast<const uint4*>(p0)[v]"), std::string::npos);
  EXPECT_EQ(k1[0].work, 64 * 64 / 4);
  EXPECT_FALSE(k1[0].reduction);
}

TEST(GraphCodegen, EveryKernelCompilesWithNvrtc) {
  if (const std::string why = gpu::nvrtc_unavailable(); !why.empty()) GTEST_SKIP() << "skipped: " << why;
  std::vector<GeneratedKernel> all;
  for (ElemType t : {ElemType::f32, ElemType::f16, ElemType::bf16}) {
    Graph g;
    const Options o{t};
    auto a = randn(g, {6, 37, 129}, 1, o), w = randn(g, {129}, 2, o);
    auto e = where(cast(relu(a), ElemType::boolean), gelu(mul(a, w), true), sigmoid(neg(a)));
    std::vector<NodeId> outs = {
        cast(add(exp(e), sqrt(mul(a, a))), ElemType::i64).id, sum(tanh(a), {2}).id, mean(a, {0, 2}, true).id,
        max(log(mul(a, a)), {1}).id, softmax(a, 0).id, log_softmax(div(a, w), -1).id,
        layer_norm(gelu(a), {129}, w, w).id, layer_norm(a, {37, 129}).id,
        add(expand(randn(g, {37, 1}, 3, o), {6, 37, 129}), a).id, sum(transpose(a, 0, 2), {}).id,
    };
    // Rows of 128: the vectorised reduction form; a weight of the input's own shape is read in every pass.
    auto b = randn(g, {4, 128}, 9, o);
    for (NodeId id : {softmax(b, -1).id, layer_norm(exp(b), {4, 128}, b, b).id, sum(b, {1}).id, max(b, {0}).id}) outs.push_back(id);
    // Whole-number epsilons must still print as float literals.
    for (double eps : {0.0, 1.0, 1e-12}) outs.push_back(layer_norm(b, {128}, std::nullopt, std::nullopt, eps).id);
    for (auto& k : kernels_of(Program{g, outs})) all.push_back(std::move(k));
  }
  ASSERT_GE(all.size(), 30u);
  for (const GeneratedKernel& k : all) {
    std::string cubin;
    EXPECT_NO_THROW(cubin = gpu::compile_cubin(k.source, k.name, 90)) << k.source;
    EXPECT_GT(cubin.size(), 1000u) << k.name;
  }
}
