// The Hopper GEMM's persistent grid where not all of its CTAs fit at once: beside a kernel that holds
// some SMs, its CTAs and clusters land on whatever SMs are free, and with few free they run one after
// another on the same SMs. Every tile must still be computed once, bit for bit as when the GEMM runs
// alone (a tile's result does not depend on which CTA computes it). Guards any tile scheduler that
// looks at where its CTAs run (docs/kernels/hopper-gemm.md, v10: one that dealt tiles by L2 side).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.hpp"
#include "kernels/gemm/hopper/hopper_gemm.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "occupy_sms.hpp"

using namespace assay;
namespace hopper = assay::kernels::hopper;

namespace {

int current_device() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess ? device : -1;
}

bool on_hopper() {
  const int device = current_device();
  return device >= 0 && hopper::device_facts(device).hopper;
}

struct Config {
  hopper::Elem elem;
  int tile_m, tile_n, cluster;
};

// Runs one GEMM on `stream` into a poisoned C and returns C's bytes.
std::vector<std::uint16_t> run_gemm(const Config& cfg, int m, int n, int k, const void* a, const void* b, void* c,
                                    const float* scales, cudaStream_t stream) {
  EXPECT_EQ(cudaMemsetAsync(c, 0xFF, static_cast<std::size_t>(m) * n * 2, stream), cudaSuccess);
  const cudaError_t err = hopper::launch(cfg.elem, cfg.tile_m, cfg.tile_n, cfg.cluster, m, n, k, a, b, c, scales,
                                         scales + 1, stream);
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorString(err);
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<std::uint16_t> out(static_cast<std::size_t>(m) * n);
  // A failed copy would leave zeros on both sides of the comparison: it must fail the test.
  EXPECT_EQ(cudaMemcpy(out.data(), c, out.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

TEST(HopperPlacement, EveryTileIsComputedWhereverTheClustersRun) {
  ASSAY_REQUIRE_GPU();
  if (!on_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const int sms = hopper::device_facts(current_device()).sms;
  const int m = 2176, n = 2064, k = 512;  // ragged edges; 17 x 9 tiles of 128 x 256: over one wave
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> nibble(0, 15);
  // Inputs as random 16-bit patterns 0x30..0x3F | 0x00..0x0F: positive and finite whichever type reads
  // them (f16 0.125 to 2, bf16 up to 1, e4m3 bytes 0.5 to 1.9 and tiny values, never the NaN 0x7F/0xFF),
  // so every output is a distinct finite number and a tile computed from the wrong place shows.
  std::vector<std::uint16_t> host_a(static_cast<std::size_t>(m) * k), host_b(static_cast<std::size_t>(k) * n);
  auto pattern = [&] { return static_cast<std::uint16_t>(((0x30 + nibble(rng)) << 8) | nibble(rng)); };
  for (auto& x : host_a) x = pattern();
  for (auto& x : host_b) x = pattern();
  void *a = nullptr, *b = nullptr, *c = nullptr;
  float* scales = nullptr;
  ASSERT_EQ(cudaMalloc(&a, host_a.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, host_b.size() * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&c, static_cast<std::size_t>(m) * n * 2), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&scales, 2 * sizeof(float)), cudaSuccess);
  const float ones[2] = {1.0f / 64, 1.0f / 64};
  ASSERT_EQ(cudaMemcpy(a, host_a.data(), host_a.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(b, host_b.data(), host_b.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(scales, ones, sizeof ones, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t gemm_stream = nullptr, busy_stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&gemm_stream, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&busy_stream, cudaStreamNonBlocking), cudaSuccess);
  for (const Config cfg : {Config{hopper::Elem::bf16, 128, 256, 2}, Config{hopper::Elem::f16, 128, 128, 1},
                           Config{hopper::Elem::e4m3, 128, 208, 2}, Config{hopper::Elem::e4m3, 128, 192, 1}}) {
    const std::string name = std::to_string(cfg.tile_m) + "x" + std::to_string(cfg.tile_n) + "_c" +
                             std::to_string(cfg.cluster) + (cfg.elem == hopper::Elem::e4m3 ? " e4m3" : " 16-bit");
    const auto alone = run_gemm(cfg, m, n, k, a, b, c, scales, gemm_stream);
    std::size_t poisoned = 0, not_finite = 0;
    for (std::uint16_t x : alone) {
      poisoned += x == 0xFFFF;
      not_finite += (x & 0x7C00) == 0x7C00 && cfg.elem == hopper::Elem::f16;  // f16 inf/NaN exponent
      not_finite += (x & 0x7F80) == 0x7F80 && cfg.elem != hopper::Elem::f16;  // bf16 inf/NaN exponent
    }
    EXPECT_EQ(poisoned, 0u) << name << ": outputs never written";
    EXPECT_EQ(not_finite, 0u) << name << ": outputs not finite";
    // A third of the SMs busy, then all but 24: with few SMs free the CTAs run one after another.
    for (const int busy : {sms / 3, sms - 24}) {
      ASSERT_EQ(assay::testing::occupy_sms(busy, 30000, busy_stream), cudaSuccess);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the spinners hold their SMs
      const auto crowded = run_gemm(cfg, m, n, k, a, b, c, scales, gemm_stream);
      EXPECT_EQ(cudaStreamSynchronize(busy_stream), cudaSuccess);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < alone.size(); ++i) differ += alone[i] != crowded[i];
      EXPECT_EQ(differ, 0u) << name << " beside " << busy << " busy SMs";
    }
  }
  cudaStreamDestroy(gemm_stream);
  cudaStreamDestroy(busy_stream);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(scales);
}

}  // namespace
