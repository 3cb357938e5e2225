// assay's reference attention and the cuBLASLt MLP against their fp64 oracles.
#include <tuple>

#include "backends/backend.hpp"
#include "gpu_test_support.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"
#include "workloads/mlp.hpp"

using namespace assay;

namespace {

verify::Tolerance tolerance_for(DType t) { return t == DType::bf16 ? verify::Tolerance{4e-3, 2e-2} : verify::Tolerance{1e-3, 1e-2}; }

void expect_matches(const Backend& backend, const Problem& p, const verify::Tolerance& tol) {
  const auto inputs = p.make_inputs(5);
  auto inst = backend.instantiate(p, inputs);
  inst->poison_output();
  inst->call(nullptr);
  const auto c = verify::check_output(inst->read_output(), p.reference(inputs, 0), tol);
  EXPECT_TRUE(c.passed) << backend.name() << " " << dtype_name(p.dtype()) << " " << p.shape_string()
                        << ": fails=" << c.fails << "/" << c.checked << " max_abs=" << c.max_abs << " "
                        << c.first_failure;
  EXPECT_EQ(c.nan_count, 0u);
}

TEST(GpuAttention, ReferenceBackendMatchesOracle) {
  ASSAY_REQUIRE_GPU();
  const Backend& assay_backend = *find_backend("assay");
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (auto [b, h, s, d, causal] : {std::tuple{1, 1, 1, 8, 0}, std::tuple{2, 3, 17, 64, 1}, std::tuple{1, 2, 300, 128, 0},
                                      std::tuple{2, 2, 513, 64, 1}})
      expect_matches(assay_backend, AttentionProblem(b, h, s, d, causal != 0, t), tolerance_for(t));
}

TEST(GpuMlp, CublasLtFusedEpiloguesMatchOracle) {
  ASSAY_REQUIRE_GPU();
  const Backend& lt = *find_backend("cublaslt");
  if (!lt.unavailable_reason().empty()) GTEST_SKIP() << lt.unavailable_reason();
  for (DType t : {DType::f32, DType::f16, DType::bf16})
    for (auto [batch, hidden] : {std::pair{1, 8}, std::pair{64, 256}, std::pair{33, 200}, std::pair{64, 2048}})
      expect_matches(lt, MlpProblem(batch, hidden, t), {0.005, 0.01});
}

}  // namespace
