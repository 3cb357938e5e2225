// assay's fused flash attention against the fp64 oracle: named edge shapes, both pinned
// configurations, and 50 random shapes per dtype (b, h in [1, 16], s in [1, 5000], d in
// {64, 128}, causal on and off). Every output element must be written (the output is poisoned
// with NaN first) and the sampled rows must match within the attention gate's tolerance.
#include <random>
#include <tuple>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "gpu_test_support.hpp"
#include "oracle_check.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"

using namespace assay;

namespace {

std::string expect_matches(const Backend& backend, const AttentionProblem& p, std::int64_t sampled_rows) {
  return gpu_test::expect_matches_oracle(backend, p, gpu_test::attention_tolerance(p.dtype()), sampled_rows, 11);
}

TEST(GpuFlashAttention, EdgeShapesBothConfigsMatchOracle) {
  ASSAY_REQUIRE_GPU();
  for (const char* name : {"assay", "assay@flash_m64", "assay@flash_m128", "assay@wgmma_m64", "assay@wgmma_m128"}) {
    const Backend& backend = *find_backend(name);
    for (DType t : {DType::f16, DType::bf16})
      for (auto [b, h, s, d, causal] :
           {std::tuple{1, 1, 1, 64, 0}, std::tuple{1, 1, 1, 128, 1}, std::tuple{2, 3, 17, 64, 1},
            std::tuple{1, 2, 63, 128, 1}, std::tuple{1, 2, 65, 64, 0}, std::tuple{1, 2, 129, 128, 1},
            std::tuple{1, 2, 300, 128, 0}, std::tuple{2, 2, 513, 64, 1}, std::tuple{1, 8, 512, 64, 0}}) {
        const std::string variant = expect_matches(backend, AttentionProblem(b, h, s, d, causal != 0, t), 0);
        EXPECT_EQ(variant.rfind("flash_", 0), 0u) << name << " ran " << variant;
      }
  }
}

// s = 1 with causal: the one row sees only key 0, so O must equal V exactly up to rounding.
TEST(GpuFlashAttention, SingleKeyReturnsV) {
  ASSAY_REQUIRE_GPU();
  const Backend& backend = *find_backend("assay");
  for (DType t : {DType::f16, DType::bf16}) {
    const AttentionProblem p(3, 5, 1, 128, true, t);
    const auto inputs = p.make_inputs(3);
    auto inst = backend.instantiate(p, inputs);
    inst->poison_output();
    inst->call(nullptr);
    const auto out = inst->read_output();
    for (std::size_t i = 0; i < out.numel(); ++i)
      ASSERT_EQ(load_as_double(t, out.data.data(), i), load_as_double(t, inputs[2].data.data(), i)) << i;
  }
}

TEST(GpuFlashAttention, FiftyRandomShapesPerDtype) {
  ASSAY_REQUIRE_GPU();
  const Backend& backend = *find_backend("assay");
  std::mt19937 rng(20261126);
  std::uniform_int_distribution<int> bh(1, 16), seq(1, 5000), coin(0, 1);
  for (DType t : {DType::f16, DType::bf16})
    for (int i = 0; i < 50; ++i) {
      const int b = bh(rng), h = bh(rng), s = seq(rng), d = coin(rng) ? 128 : 64;
      const bool causal = coin(rng) != 0;
      expect_matches(backend, AttentionProblem(b, h, s, d, causal, t), 48);
    }
}

// The unpinned backend still runs the reference where the flash kernel does not apply.
TEST(GpuFlashAttention, OtherHeadDimsFallBackToReference) {
  ASSAY_REQUIRE_GPU();
  const Backend& backend = *find_backend("assay");
  EXPECT_EQ(expect_matches(backend, AttentionProblem(1, 2, 40, 32, true, DType::f16), 0),
            "cublas-gemm+softmax+cublas-gemm");
  const Backend& pinned = *find_backend("assay@flash_m64");
  const AttentionProblem p(1, 2, 40, 32, false, DType::f16);
  try {
    pinned.instantiate(p, p.make_inputs(1));
    ADD_FAILURE() << "assay@flash_m64 took d = 32";
  } catch (const SkipError& e) {
    EXPECT_NE(std::string(e.what()).find("d = 64 or 128"), std::string::npos) << e.what();
  }
}

}  // namespace
