// The lazy engine's GPU executor against its CPU reference executor: every op class, views
// read in place and copied, broadcasting, reductions, the GEMM and attention paths (assay's
// kernels, cuBLAS, cuBLASLt epilogues, the composite attention), CUDA graph replay, and the
// playbook's relu(x @ x).sum() with known values. The counters prove the GPU ran it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <random>
#include <tuple>

#include "core/error.hpp"
#include "gpu_test_support.hpp"
#include "graph/executor.hpp"
#include "graph/tensor.hpp"
#include "graph_gpu/gpu_executor.hpp"

using namespace assay::graph;

namespace {

// |gpu - cpu| <= atol + rtol |cpu| elementwise, NaN only where the reference has NaN.
void expect_close(const HostValue& gpu, const HostValue& cpu, double atol, double rtol, const std::string& what) {
  ASSERT_EQ(gpu.shape, cpu.shape) << what;
  ASSERT_EQ(gpu.values.size(), cpu.values.size()) << what;
  std::size_t bad = 0, first = 0;
  for (std::size_t i = 0; i < cpu.values.size(); ++i) {
    const double g = gpu.values[i], c = cpu.values[i];
    const bool ok = std::isnan(c) ? std::isnan(g) : (!std::isnan(g) && std::abs(g - c) <= atol + rtol * std::abs(c));
    if (!ok && bad++ == 0) first = i;
  }
  EXPECT_EQ(bad, 0u) << what << ": " << bad << " of " << cpu.values.size() << " differ; first at " << first << ": gpu "
                     << gpu.values[first] << " cpu " << cpu.values[first];
}

double tol(ElemType t) { return t == ElemType::f32 ? 2e-4 : t == ElemType::f16 ? 1e-2 : 4e-2; }

void check_program(GpuExecutor& ex, const Graph& g, std::vector<NodeId> outs, ElemType t, const std::string& what) {
  const auto want = CpuExecutor().run(g, outs);
  const auto got = ex.run(g, outs);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) expect_close(got[i], want[i], tol(t), tol(t), what + " output " + std::to_string(i));
}

const ElemType kTypes[] = {ElemType::f32, ElemType::f16, ElemType::bf16};

}  // namespace

TEST(GpuLazy, ElementwiseBroadcastAndCasts) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  for (ElemType t : kTypes) {
    Graph g;
    const Options o{t, "remote_accelerator:0"};
    auto a = randn(g, {33, 65}, 1, o), b = randn(g, {65}, 2, o), c = randn(g, {33, 1}, 3, o);
    auto pos = add(mul(a, a), full(g, {1}, 0.5, o));
    auto e = sub(div(exp(neg(relu(a))), add(pos, c)), sigmoid(b));
    auto f = mul(tanh(e), add(gelu(a), gelu(b, true)));
    auto h = add(log(pos), sqrt(pos));
    auto w = where(cast(relu(c), ElemType::boolean), f, h);
    auto x = cast(cast(w, ElemType::f32), t);
    auto ex2 = expand(c, {4, 33, 65});
    // Sizes that the 16-byte vectorised form takes (contiguous operands, a multiple of 8 elements)
    auto v1 = randn(g, {64, 256}, 30, o), v2 = randn(g, {256}, 31, o);
    auto vec = cast(gelu(add(mul(v1, v1), v2)), ElemType::f32);
    auto vec2 = where(cast(relu(v1), ElemType::boolean), v1, sub(v1, v1));
    check_program(ex, g, {x.id, add(ex2, a).id, vec.id, vec2.id}, t, std::string("elementwise ") + std::string(elem_name(t)));
  }
  const GpuStats s = ex.stats();
  EXPECT_GT(s.generated_launches, 0);
  EXPECT_GT(s.kernels_compiled, 0);
}

TEST(GpuLazy, ReductionsAndNormalisations) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  for (ElemType t : kTypes) {
    Graph g;
    const Options o{t, "remote_accelerator:0"};
    auto a = randn(g, {6, 37, 129}, 4, o);
    auto w = randn(g, {129}, 5, o), b = randn(g, {129}, 6, o);
    std::vector<NodeId> outs = {
        sum(a, {2}).id, mean(a, {0, 2}, true).id, max(relu(a), {1}).id, sum(exp(a), {}).id,
        softmax(a, -1).id, log_softmax(a, 1).id, softmax(mul(a, a), 0).id,
        layer_norm(a, {129}, w, b).id, layer_norm(add(a, a), {37, 129}).id,
    };
    // Rows whose length is a multiple of 8: the vectorised form (and a weight of the row's own shape).
    auto v = randn(g, {5, 3, 256}, 7, o), vw = randn(g, {3, 256}, 8, o);
    for (NodeId id : {softmax(v, -1).id, log_softmax(mul(v, v), -1).id, layer_norm(v, {256}, randn(g, {256}, 9, o), randn(g, {256}, 10, o)).id,
                      layer_norm(v, {3, 256}, vw, vw).id, sum(v, {2}).id, mean(v, {1, 2}).id, max(v, {2}, true).id})
      outs.push_back(id);
    check_program(ex, g, outs, t, std::string("reductions ") + std::string(elem_name(t)));
  }
}

TEST(GpuLazy, ViewsInPlaceAndCopied) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  Graph g;
  const Options o{ElemType::f16, "remote_accelerator:0"};
  auto a = randn(g, {4, 6, 10}, 7, o);
  auto p = permute(a, {2, 0, 1});                // read in place with strides
  auto s = slice(p, 0, 1, 9, 3);                 // strided slice of a permuted view
  auto r = reshape(s, {3, 24});                  // not contiguous: copied
  auto out1 = add(r, r);
  auto out2 = exp(transpose(a, 0, 2));
  auto out3 = sum(slice(a, 2, -4, 10, 1), {1});
  check_program(ex, g, {out1.id, out2.id, out3.id, p.id, s.id}, ElemType::f16, "views");
  EXPECT_GT(ex.stats().fixed_launches, 0);  // the copies
}

TEST(GpuLazy, MatmulPaths) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  for (ElemType t : kTypes) {
    Graph g;
    const Options o{t, "remote_accelerator:0"};
    auto a = randn(g, {3, 64, 128}, 8, o), w = randn(g, {128, 96}, 9, o), bias = randn(g, {96}, 10, o);
    auto plain = matmul(randn(g, {128, 256}, 11, o), randn(g, {256, 64}, 12, o));  // assay's GEMM for f16/bf16
    auto batched = matmul(a, randn(g, {3, 128, 40}, 13, o));                        // batched cuBLAS
    auto shared = matmul(a, w);                                                     // batch folded into rows
    auto trans = matmul(transpose(randn(g, {128, 64}, 14, o), 0, 1), w);            // A read transposed
    auto lin = gelu(add(matmul(a, w), bias), true);                                 // cuBLASLt GELU_BIAS
    auto lin2 = relu(linear(a, randn(g, {50, 128}, 15, o), randn(g, {50}, 16, o)));  // RELU_BIAS
    auto nobias = linear(a, randn(g, {50, 128}, 17, o));                            // B read transposed
    auto bcast = matmul(randn(g, {2, 1, 16, 32}, 18, o), randn(g, {3, 32, 8}, 19, o));  // broadcast batch: copies
    check_program(ex, g, {plain.id, batched.id, shared.id, trans.id, lin.id, lin2.id, nobias.id, bcast.id}, t,
                  std::string("matmul ") + std::string(elem_name(t)));
  }
  const GpuStats s = ex.stats();
  EXPECT_GT(s.assay_gemm, 0);
  EXPECT_GT(s.cublas, 0);
  EXPECT_GT(s.cublaslt, 0);
}

TEST(GpuLazy, AttentionFlashAndComposite) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  for (ElemType t : kTypes) {
    for (int causal = 0; causal < 2; ++causal) {
      Graph g;
      const Options o{t, "remote_accelerator:0"};
      auto q = randn(g, {2, 3, 77, 64}, 20, o), k = randn(g, {2, 3, 77, 64}, 21, o), v = randn(g, {2, 3, 77, 64}, 22, o);
      auto flash = scaled_dot_product_attention(q, k, v, causal != 0);  // f16/bf16: assay's flash kernel
      auto k2 = randn(g, {2, 3, 50, 64}, 23, o), v2 = randn(g, {2, 3, 50, 32}, 24, o);
      auto comp = scaled_dot_product_attention(q, k2, v2, causal != 0, 0.2);  // L != S, Ev != E: the composite
      // [b, s, h, d] read as [b, h, s, d]: strided views, copied before the kernel
      const auto split = [&](std::uint64_t seed) { return permute(randn(g, {2, 77, 3, 128}, seed, o), {0, 2, 1, 3}); };
      auto heads = scaled_dot_product_attention(split(25), split(26), split(27), causal != 0);
      // d = 256: the wgmma kernel's one instance on Hopper (strided heads copied: no mma.sync
      // instance reads them), the composite elsewhere
      const auto split256 = [&](std::uint64_t seed) { return permute(randn(g, {1, 90, 2, 256}, seed, o), {0, 2, 1, 3}); };
      auto wide = scaled_dot_product_attention(split256(28), split256(29), split256(30), causal != 0);
      check_program(ex, g, {flash.id, comp.id, heads.id, wide.id}, t,
                    std::string("attention ") + std::string(elem_name(t)) + (causal ? " causal" : ""));
    }
  }
  EXPECT_GT(ex.stats().assay_attention, 0);
}

TEST(GpuLazy, ReplayFromCapturedGraph) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  const auto make = [](Graph& g, std::uint64_t seed) {
    const Options o{ElemType::f16, "remote_accelerator:0"};
    auto x = randn(g, {256, 256}, seed, o);
    return softmax(relu(matmul(x, x)), -1);
  };
  Graph g1, g2;
  const auto y1 = make(g1, 1), y2 = make(g2, 2);
  const auto a = ex.run(g1, {y1.id});
  const auto b = ex.run(g2, {y2.id});  // same structure, another seed (an attribute: a new plan)
  const auto c = ex.run(g1, {y1.id});  // seen again: replayed
  const GpuStats s = ex.stats();
  EXPECT_EQ(s.captures, 2);
  EXPECT_EQ(s.graph_replays, 1);
  EXPECT_EQ(s.plan_hits, 1);
  EXPECT_EQ(a[0].values, c[0].values);
  EXPECT_NE(a[0].values, b[0].values);
  // Constants of new values in the same structure are uploaded again, not replayed stale.
  Graph h1, h2;
  const Options f{ElemType::f32, "remote_accelerator:0"};
  auto c1 = from_host(h1, {2}, {1, 2}, f), c2 = from_host(h2, {2}, {5, 7}, f);
  const auto r1 = ex.run(h1, {exp(c1).id}), r2 = ex.run(h2, {exp(c2).id});
  EXPECT_FLOAT_EQ(r1[0].values[1], std::exp(2.0f));
  EXPECT_FLOAT_EQ(r2[0].values[1], std::exp(7.0f));
  // Equal values are not copied again, though folding makes new data each run (a small factory
  // is folded into a constant); values equal but for the sign of a zero are.
  Graph k;
  auto folded = exp(randn(k, {4}, 3, f));
  ex.run(k, {folded.id});
  const auto before = ex.stats().constant_uploads;
  ex.run(k, {folded.id});
  EXPECT_EQ(ex.stats().constant_uploads, before);
  Graph z1, z2;
  auto p0 = from_host(z1, {1}, {0.0f}, f), n0 = from_host(z2, {1}, {-0.0f}, f);
  const auto rp = ex.run(z1, {div(ones(z1, {1}, f), p0).id}), rn = ex.run(z2, {div(ones(z2, {1}, f), n0).id});
  EXPECT_EQ(rp[0].values[0], INFINITY);
  EXPECT_EQ(rn[0].values[0], -INFINITY);
}

// Caller-bound pointers must be at the arena's alignment (the plan's kernels and GEMM plans assume
// it): an offset one is refused with the pointer named, before anything runs.
TEST(GpuLazy, CallerPointersMustBeAligned) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  Graph g;
  const Options o{ElemType::f32, "remote_accelerator:0"};
  auto x = from_host(g, {64}, std::vector<float>(64, 1.0f), o);
  auto y = exp(x);
  const Program p{g, {y.id}};
  GpuPlan& plan = ex.prepare(p, {g.node(x.id).data.get()});
  void* buf = nullptr;
  ASSERT_EQ(cudaMalloc(&buf, 4096), cudaSuccess);
  char* base = static_cast<char*>(buf);
  ex.enqueue(plan, nullptr, {base}, {base + 1024});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (auto [in, out, what] : {std::tuple{base + 4, base + 1024, "input 0"}, std::tuple{base, base + 1040, "output 0"}}) {
    try {
      ex.enqueue(plan, nullptr, {in}, {out});
      ADD_FAILURE() << what << " misaligned was taken";
    } catch (const assay::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
  cudaFree(buf);
}

// Edge shapes and layouts: an expand that ends its group (read by a GEMM, an output), empty
// GEMMs, an empty sum over k, a whole-number epsilon, a linear on an offset (unaligned) view.
TEST(GpuLazy, EdgeShapesAndLayouts) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  for (ElemType t : kTypes) {
    Graph g;
    const Options o{t, "remote_accelerator:0"};
    auto x = randn(g, {1, 64}, 1, o), w = randn(g, {64, 8}, 2, o);
    auto e1 = expand(x, {256, 64});
    auto e2 = expand(exp(x), {256, 64});
    auto empty_n = matmul(randn(g, {4, 8}, 3, o), randn(g, {8, 0}, 4, o));
    auto empty_k = matmul(randn(g, {4, 0}, 5, o), randn(g, {0, 6}, 6, o));
    auto empty_in = linear(randn(g, {4, 0}, 17, o), randn(g, {6, 0}, 18, o), std::nullopt);  // zeros, 4 x 6
    auto ln = layer_norm(randn(g, {8, 32}, 7, o), {32}, std::nullopt, std::nullopt, 1.0);
    auto big = randn(g, {5, 101}, 8, o);
    auto lin = linear(slice(big, 0, 1, 5), randn(g, {12, 101}, 9, o), randn(g, {12}, 10, o));  // offset 101 elements
    // Attention with an empty head dim (every row the mean of V's) or no keys (zeros), as the CPU executor.
    auto no_e = scaled_dot_product_attention(randn(g, {2, 5, 0}, 11, o), randn(g, {2, 3, 0}, 12, o), randn(g, {2, 3, 4}, 13, o));
    auto no_s = scaled_dot_product_attention(randn(g, {1, 2, 4}, 14, o), randn(g, {1, 0, 4}, 15, o), randn(g, {1, 0, 3}, 16, o));
    check_program(ex, g, {matmul(e1, w).id, matmul(e2, w).id, e1.id, empty_n.id, empty_k.id, ln.id, lin.id, no_e.id, no_s.id,
                          empty_in.id},
                  t, std::string("edges ") + std::string(elem_name(t)));
  }
}

// More structures than the executor keeps: the least recently used plans are freed, and a
// program whose plan was freed is prepared again and still right.
TEST(GpuLazy, PlansBeyondTheCacheAreEvictedAndRebuilt) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  const Options o{ElemType::f32, "remote_accelerator:0"};
  const auto program = [&](std::int64_t n, Graph& g) { return sum(exp(randn(g, {n, 8}, 5, o)), {1}).id; };
  Graph first;
  const NodeId f = program(1, first);
  const auto want = ex.run(first, {f});
  for (std::int64_t n = 2; n <= 40; ++n) {
    Graph g;
    const NodeId id = program(n, g);
    expect_close(ex.run(g, {id})[0], CpuExecutor().run(g, {id})[0], 1e-5, 1e-5, "plan " + std::to_string(n));
  }
  const std::int64_t before = ex.stats().plans;
  EXPECT_EQ(ex.run(first, {f})[0].values, want[0].values);
  EXPECT_EQ(ex.stats().plans, before + 1);  // it had been evicted
}

// The playbook's chain on 1000 x 1000, with known values and against float64.
TEST(GpuLazy, PlaybookChainKnownValues) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  const Options o{ElemType::f32, "remote_accelerator:0"};
  {
    Graph g;
    auto x = ones(g, {1000, 1000}, o);
    EXPECT_DOUBLE_EQ(ex.run(g, {sum(relu(matmul(x, x)), {}).id})[0].values[0], 1e9);
  }
  {
    Graph g;
    auto x = full(g, {1000, 1000}, -0.5, o);
    EXPECT_DOUBLE_EQ(ex.run(g, {sum(relu(matmul(x, x)), {}).id})[0].values[0], 2.5e8);
    auto y = full(g, {1000, 1000}, 0.5, o);
    EXPECT_DOUBLE_EQ(ex.run(g, {sum(relu(neg(matmul(y, y))), {}).id})[0].values[0], 0.0);
  }
  Graph g;
  auto x = randn(g, {1000, 1000}, 42, o);
  auto y = sum(relu(matmul(x, x)), {});
  const double got = ex.run(g, {y.id})[0].values[0], want = CpuExecutor().run(g, {y.id})[0].values[0];
  EXPECT_NEAR(got, want, 1e-5 * std::abs(want));
  const GpuStats s = ex.stats();
  EXPECT_GT(s.cublas + s.assay_gemm, 0);
  EXPECT_GT(s.generated_launches, 0);
}

// Random shapes and chains: elementwise + reduction + matmul, over the three dtypes.
TEST(GpuLazy, RandomPrograms) {
  ASSAY_REQUIRE_GPU();
  GpuExecutor ex;
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> dim(1, 70), pick(0, 5);
  for (int trial = 0; trial < 30; ++trial) {
    const ElemType t = kTypes[trial % 3];
    const Options o{t, "remote_accelerator:0"};
    Graph g;
    const std::int64_t m = dim(rng), k = dim(rng), n = dim(rng);
    auto a = randn(g, {m, k}, 100 + trial, o), b = randn(g, {k, n}, 200 + trial, o);
    LazyTensor y = matmul(a, b);
    for (int step = 0; step < 4; ++step) {
      switch (pick(rng)) {
        case 0: y = relu(y); break;
        case 1: y = add(y, randn(g, {n}, 300 + trial * 8 + step, o)); break;
        case 2: y = mul(y, sigmoid(y)); break;
        case 3: y = tanh(y); break;
        case 4: y = gelu(y); break;
        default: y = neg(y); break;
      }
    }
    const LazyTensor r = trial % 2 ? softmax(y, -1) : sum(y, {0});
    check_program(ex, g, {r.id, y.id}, t, "random program " + std::to_string(trial));
  }
}

// A generated kernel before a GEMM prefetches the GEMM's weight into L2, in both layouts of the
// contraction dim (linear's [out, in] weight: the leading lines of every row; matmul's [k, n]: the
// leading rows), exactly the slab planned; the results match the CPU reference (a prefetch cannot
// change them: this checks the kernel's extra parameters). A kernel whose own traffic fills the
// window issues none, and does once the window is wider; ASSAY_LAZY_L2_PREFETCH_MB=0 turns it off.
TEST(GpuLazy, GeneratedKernelsPrefetchTheNextGemmsWeight) {
  ASSAY_REQUIRE_GPU();
  const Options o{ElemType::f16, "remote_accelerator:0"};
  Graph g;
  // The weights first: their randn steps then run before the chain, as a program's weights are
  // there before its activations (a step writing an operand just before the kernel gets none).
  auto w1 = randn(g, {512, 128}, 2, o), b1 = randn(g, {512}, 3, o);
  auto w2 = randn(g, {128, 512}, 4, o), b2 = randn(g, {128}, 5, o);
  auto w3 = randn(g, {128, 384}, 6, o);
  auto x = randn(g, {64, 128}, 1, o);
  auto h = gelu(linear(x, w1, b1));  // erf: a generated kernel
  auto y = linear(h, w2, b2);        // weight [out, in]
  auto t = tanh(y);
  auto z = matmul(t, w3);            // weight [k, n]
  std::vector<HostValue> with;
  {
    GpuExecutor ex;
    check_program(ex, g, {z.id}, ElemType::f16, "with prefetch");
    with = ex.run(g, {z.id});
    // Counted when the steps are recorded (the second run replays the captured graph): w2 as B
    // [512, 128], 128 rows of 1 KiB, all of it (8 lines each); w3 [128, 384], its 96 KiB from the
    // start (768 lines).
    EXPECT_EQ(ex.stats().captures, 1);
    EXPECT_EQ(ex.stats().l2_prefetch_bytes, (128 * 8 + 768) * 128);
  }
  {
    Graph big;  // 4096 x 4096: the GELU's own 64 MiB fill the default window
    auto wb = randn(big, {4096, 64}, 2, o);
    auto b = matmul(gelu(randn(big, {4096, 4096}, 1, o)), wb);
    {
      GpuExecutor ex;
      ex.run(big, {b.id});
      EXPECT_EQ(ex.stats().l2_prefetch_bytes, 0);
    }
    setenv("ASSAY_LAZY_L2_PREFETCH_MB", "100", 1);  // 100 MiB less 64: room for the 512 KiB weight
    GpuExecutor ex;
    ex.run(big, {b.id});
    unsetenv("ASSAY_LAZY_L2_PREFETCH_MB");
    EXPECT_EQ(ex.stats().l2_prefetch_bytes, 4096 * 64 * 2);
  }
  setenv("ASSAY_LAZY_L2_PREFETCH_MB", "0", 1);
  GpuExecutor ex;
  const auto without = ex.run(g, {z.id});
  unsetenv("ASSAY_LAZY_L2_PREFETCH_MB");
  EXPECT_EQ(ex.stats().l2_prefetch_bytes, 0);
  ASSERT_EQ(with.size(), 1u);
  ASSERT_EQ(without.size(), 1u);
  EXPECT_EQ(with[0].values, without[0].values);
}
