// The cudnn backend (cuDNN 9's fused attention through the graph API) against the fp64 oracle.
// Skipped where cuDNN is not found; a shape cuDNN refuses (SkipError) fails here, because
// every shape below is inside its documented support on sm_80 and newer.
#include <cuda_runtime.h>

#include <cstring>
#include <iostream>
#include <tuple>

#include "backends/backend.hpp"
#include "backends/cudnn_api.hpp"
#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu_test_support.hpp"
#include "oracle_check.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"

using namespace assay;

namespace {

const Backend* usable_cudnn(std::string& why) {
  const Backend* b = find_backend("cudnn");
  if (!b) why = "no backend named cudnn";
  else why = b->unavailable_reason();
  return why.empty() ? b : nullptr;
}

TEST(GpuCudnnAttention, MatchesOracle) {
  ASSAY_REQUIRE_GPU();
  std::string why;
  const Backend* cudnn = usable_cudnn(why);
  if (!cudnn) GTEST_SKIP() << why;
  std::cout << "cuDNN " << cudnn->library_version() << " from " << cudnn::api().loaded_from << "\n";
  for (DType t : {DType::f16, DType::bf16})
    for (auto [b, h, s, d, causal] : {std::tuple{1, 1, 1, 64, 0}, std::tuple{2, 3, 17, 64, 1},
                                      std::tuple{1, 2, 300, 128, 0}, std::tuple{2, 2, 513, 64, 1},
                                      std::tuple{1, 8, 512, 64, 0}})
      std::cout << "cudnn " << dtype_name(t) << " b=" << b << ",causal=" << causal << ",d=" << d << ",h=" << h
                << ",s=" << s << ": "
                << gpu_test::expect_matches_oracle(*cudnn, AttentionProblem(b, h, s, d, causal != 0, t),
                                                  gpu_test::attention_tolerance(t))
                << "\n";
}

// Rotating input sets give each call other pointers (one variant pack per set), and the
// samplers call on a stream of their own (cudnnSetStream): the output is still the oracle's.
TEST(GpuCudnnAttention, RotatedInputsOnAStreamMatchOracle) {
  ASSAY_REQUIRE_GPU();
  std::string why;
  const Backend* cudnn = usable_cudnn(why);
  if (!cudnn) GTEST_SKIP() << why;
  const AttentionProblem p(2, 4, 256, 64, true, DType::bf16);
  const auto inputs = p.make_inputs(9);
  auto inst = cudnn->instantiate(p, inputs);
  ASSERT_GE(inst->rotate_inputs(3), 2u);
  cudaStream_t stream = nullptr;
  ASSAY_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 5; ++i) inst->call(stream);
  inst->poison_output();
  inst->call(stream);
  const auto c = verify::check_output(inst->read_output(), p.reference(inputs, 0), gpu_test::attention_tolerance(p.dtype()));
  ASSAY_CUDA(cudaStreamDestroy(stream));
  EXPECT_TRUE(c.passed) << "fails=" << c.fails << "/" << c.checked << " max_abs=" << c.max_abs << " "
                        << c.first_failure;
  EXPECT_EQ(c.nan_count, 0u);
}

// FP8 (e4m3 Q, K, V with per-tensor descales) against the reference on the dequantised inputs.
// What FP8 adds on top of them: P enters the second matmul in e4m3 (relative rounding <= 2^-4,
// so |ΔO| <= 2^-4 · Σ P·|V| <= amax(V) / 16, reached in causal rows that average few keys) and
// cuDNN writes O in e4m3 on Hopper (<= 2^-4 relative again); the backend dequantises O for the
// read-back. The bound is the tolerance: a wrong descale or scale is off by far more. A poisoned
// output that no call overwrote reads as NaN, so the check would see a launch that wrote
// nothing. Per-(batch, head) descales are skipped.
TEST(GpuCudnnAttention, Fp8MatchesTheDequantisedReference) {
  ASSAY_REQUIRE_GPU();
  std::string why;
  const Backend* cudnn = usable_cudnn(why);
  if (!cudnn) GTEST_SKIP() << why;
  int dev = 0, major = 0;
  ASSAY_CUDA(cudaGetDevice(&dev));
  ASSAY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  if (major < 9) GTEST_SKIP() << "cuDNN's FP8 attention needs Hopper or newer";
  const auto bound = [](const AttentionProblem& p) {
    const auto in = p.make_inputs(5);  // expect_matches_oracle's seed
    float descale_v = 0.0f;
    std::memcpy(&descale_v, in[5].data.data(), sizeof descale_v);
    return verify::Tolerance{448.0 * descale_v / 16.0, 1.0 / 16.0};
  };
  for (auto [b, h, s, d, causal, outliers] : {std::tuple{1, 2, 300, 128, 0, 0}, std::tuple{2, 2, 513, 64, 1, 0},
                                              std::tuple{1, 8, 512, 64, 0, 1000}}) {
    const AttentionProblem p(b, h, s, d, causal != 0, DType::f8e4m3, outliers);
    std::cout << "cudnn f8e4m3 b=" << b << ",causal=" << causal << ",d=" << d << ",h=" << h << ",s=" << s
              << ",outliers=" << outliers << ": " << gpu_test::expect_matches_oracle(*cudnn, p, bound(p)) << "\n";
  }
  // With outliers amax(V) is 16x the typical |V|, and the elementwise bound above says little;
  // the relative L2 error does: P's and O's roundings (each within 2^-4) keep it under 1/8, while
  // an unwritten, zero or mis-scaled output is off by 1 or more.
  {
    const AttentionProblem p(1, 8, 512, 64, false, DType::f8e4m3, 1000);
    const auto in = p.make_inputs(7);
    auto inst = cudnn->instantiate(p, in);
    inst->poison_output();
    inst->call(nullptr);
    const auto c = verify::check_output(inst->read_output(), p.reference(in, 0), bound(p));
    EXPECT_EQ(c.nan_count, 0u);
    EXPECT_LT(c.rel_l2, 0.125) << "rmse " << c.rmse;
  }
  const AttentionProblem p(1, 2, 64, 64, false, DType::f8e4m3);
  const verify::Tolerance tol = bound(p);
  auto inst = cudnn->instantiate(p, p.make_inputs(3));
  inst->poison_output();
  const auto c = verify::check_output(inst->read_output(), p.reference(p.make_inputs(3), 0), tol);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.nan_count, c.checked);
  const AttentionProblem per_head(1, 2, 64, 64, false, DType::f8e4m3, 0, true);
  try {
    cudnn->instantiate(per_head, per_head.make_inputs(1));
    ADD_FAILURE() << "per-head descales were not refused";
  } catch (const SkipError& e) {
    EXPECT_NE(std::string(e.what()).find("per tensor"), std::string::npos) << e.what();
  }
}

TEST(GpuCudnnAttention, F32IsSkippedWithTheReason) {
  ASSAY_REQUIRE_GPU();
  std::string why;
  const Backend* cudnn = usable_cudnn(why);
  if (!cudnn) GTEST_SKIP() << why;
  const AttentionProblem p(1, 1, 16, 64, false, DType::f32);
  try {
    cudnn->instantiate(p, p.make_inputs(1));
    ADD_FAILURE() << "f32 was not refused";
  } catch (const SkipError& e) {
    EXPECT_NE(std::string(e.what()).find("f16, bf16 and f8e4m3"), std::string::npos) << e.what();
  }
}

}  // namespace
