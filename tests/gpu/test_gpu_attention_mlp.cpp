// assay's reference attention (assay@reference: cuBLAS GEMMs + softmax) and the cuBLASLt MLP against their
// fp64 oracles.
#include <tuple>

#include "backends/backend.hpp"
#include "gpu_test_support.hpp"
#include "oracle_check.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"
#include "workloads/mlp.hpp"

using namespace assay;

namespace {

TEST(GpuAttention, ReferenceBackendMatchesOracle) {
  ASSAY_REQUIRE_GPU();
  const Backend& assay_backend = *find_backend("assay@reference");
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (auto [b, h, s, d, causal] : {std::tuple{1, 1, 1, 8, 0}, std::tuple{2, 3, 17, 64, 1}, std::tuple{1, 2, 300, 128, 0},
                                      std::tuple{2, 2, 513, 64, 1}})
      gpu_test::expect_matches_oracle(assay_backend, AttentionProblem(b, h, s, d, causal != 0, t),
                                     gpu_test::attention_tolerance(t));
}

TEST(GpuMlp, CublasLtFusedEpiloguesMatchOracle) {
  ASSAY_REQUIRE_GPU();
  const Backend& lt = *find_backend("cublaslt");
  if (!lt.unavailable_reason().empty()) GTEST_SKIP() << lt.unavailable_reason();
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (auto [batch, hidden] : {std::pair{1, 8}, std::pair{64, 256}, std::pair{33, 200}, std::pair{64, 2048}})
      gpu_test::expect_matches_oracle(lt, MlpProblem(batch, hidden, t), {0.005, 0.01});
}

}  // namespace
