// The cudnn backend (cuDNN 9's fused attention through the graph API) against the fp64 oracle.
// Skipped where cuDNN is not found; a shape cuDNN refuses (SkipError) fails here, because
// every shape below is inside its documented support on sm_80 and newer.
#include <cuda_runtime.h>

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
    EXPECT_NE(std::string(e.what()).find("f16 and bf16"), std::string::npos) << e.what();
  }
}

}  // namespace
