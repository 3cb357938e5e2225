// assay's FP8 (e4m3) flash attention (Hopper) against fp64 on the dequantised inputs it was
// given: the error left is the kernel's own (P rounded to e4m3, O to bf16), and a relative L2
// bound catches what an elementwise FP8 bound is too loose for: a mis-scaled, permuted or
// unwritten output. The sharp-attention test makes each query attend to one key, so a wrong
// key order in P·V (the kernel permutes V's keys to match P's registers) shows as a wrong row.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <tuple>
#include <utility>

#include "backends/backend.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu_test_support.hpp"
#include "scoped_env.hpp"
#include "verify/tolerance.hpp"
#include "workloads/attention.hpp"

using namespace assay;

namespace {

bool hopper() {
  int dev = 0, major = 0, minor = 0;
  ASSAY_CUDA(cudaGetDevice(&dev));
  ASSAY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  ASSAY_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  return major == 9 && minor == 0;
}

// FP8's bound on O (as for cuDNN's FP8 test): P within 2^-4 relative after its e4m3 rounding,
// so |ΔO| <= amax(V)/16 + |O|/16.
verify::Tolerance fp8_bound(const std::vector<HostTensor>& in) {
  float vmax_descale = 0.0f;
  const auto& ds = in[5];
  for (std::size_t i = 0; i < ds.numel(); ++i) {
    float x = 0.0f;
    std::memcpy(&x, ds.data.data() + i * sizeof x, sizeof x);
    vmax_descale = std::max(vmax_descale, x);
  }
  return verify::Tolerance{448.0 * vmax_descale / 16.0, 1.0 / 16.0};
}

// One call into a poisoned output, checked on `sampled_rows` rows (0: all); returns the variant.
std::string expect_close(const Backend& backend, const AttentionProblem& p, const std::vector<HostTensor>& in,
                         double max_rel_l2, std::int64_t sampled_rows = 0) {
  auto inst = backend.instantiate(p, in);
  inst->poison_output();
  inst->call(nullptr);
  const auto out = inst->read_output();
  const auto c = verify::check_output(out, p.reference(in, sampled_rows), fp8_bound(in));
  const std::string what = backend.name() + " " + inst->variant() + " " + p.shape_string();
  EXPECT_TRUE(c.passed) << what << ": fails=" << c.fails << "/" << c.checked << " " << c.first_failure;
  EXPECT_EQ(c.nan_count, 0u) << what << ": unwritten (NaN poison) or non-finite elements";
  EXPECT_LT(c.rel_l2, max_rel_l2) << what << ": rmse " << c.rmse;
  std::cout << what << ": rel_l2 " << c.rel_l2 << " max_abs " << c.max_abs << "\n";
  return inst->variant();
}

TEST(GpuFlashFp8, MatchesTheDequantisedReference) {
  ASSAY_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "the FP8 kernel runs on compute capability 9.0 only";
  for (const char* name : {"assay", "assay@wgmma_m64", "assay@wgmma_m128"}) {
    const Backend& backend = *find_backend(name);
    for (auto [b, h, s, d, causal, per_head] :
         {std::tuple{1, 1, 1, 64, 1, 0}, std::tuple{1, 2, 63, 128, 1, 0}, std::tuple{2, 3, 130, 64, 0, 0},
          std::tuple{1, 2, 300, 128, 0, 0}, std::tuple{2, 2, 513, 64, 1, 1}, std::tuple{1, 2, 257, 256, 0, 0},
          std::tuple{1, 2, 700, 256, 1, 1}, std::tuple{1, 8, 512, 64, 0, 0}, std::tuple{2, 3, 1000, 128, 1, 1}}) {
      const AttentionProblem p(b, h, s, d, causal != 0, DType::f8e4m3, 0, per_head != 0);
      const std::string variant = expect_close(backend, p, p.make_inputs(5), 0.03);
      EXPECT_EQ(variant.rfind("flash_fp8_", 0), 0u) << name << " ran " << variant;
    }
  }
  // Grids of over 3 waves, V transposed by each path as ASSAY_FP8_VT pins it (the cases above, one
  // wave, take the in-kernel transposition at d <= 128; unpinned, these would too: s <= 2048).
  for (const char* vt : {"kernel", "pass"})
    for (auto [b, h, s, d, causal] : {std::tuple{8, 16, 1000, 64, 1}, std::tuple{4, 16, 777, 128, 0}}) {
      const ScopedEnv pin("ASSAY_FP8_VT", vt);
      const AttentionProblem p(b, h, s, d, causal != 0, DType::f8e4m3);
      const std::string variant = expect_close(*find_backend("assay"), p, p.make_inputs(5), 0.03, 3000);
      EXPECT_EQ(variant.find("_vtpass") != std::string::npos, std::string(vt) == "pass") << variant;
    }
}

TEST(GpuFlashFp8, SharpAttentionFollowsTheRightKey) {
  ASSAY_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "the FP8 kernel runs on compute capability 9.0 only";
  std::mt19937 rng(7);
  // b·h = 2: one wave, V transposed as the heuristic chooses (in the kernel at d <= 128); b·h =
  // 512: many waves, each path pinned by ASSAY_FP8_VT. Each path has its own key permutation to
  // get right; d = 256 has the pre-pass only.
  for (const char* name : {"assay@wgmma_m64", "assay@wgmma_m128"})
    for (auto [bh, vt] : {std::pair{2, ""}, std::pair{512, "kernel"}, std::pair{512, "pass"}})
      for (int d : {64, 128, 256})
        for (int causal : {0, 1}) {
          const ScopedEnv pin("ASSAY_FP8_VT", vt);
          const int s = 300;
          const AttentionProblem p(1, bh, s, d, causal != 0, DType::f8e4m3);
          auto in = p.make_inputs(9);
          // K entries ±1 (e4m3 0x38 / 0xB8), Q_i = K_key(i); descales 2 (Q) and 1 (K): the chosen
          // key scores 2·sqrt(d) after the 1/sqrt(d) scale, the others about ±2, so each row's
          // weight sits on its one key.
          for (std::size_t i = 0; i < in[1].numel(); ++i)
            in[1].data[i] = std::byte{static_cast<unsigned char>(rng() % 2 ? 0x38 : 0xB8)};
          for (int head = 0; head < bh; ++head)
            for (int i = 0; i < s; ++i) {
              const int key = causal ? static_cast<int>(rng() % (i + 1)) : static_cast<int>(rng() % s);
              std::memcpy(&in[0].data[(static_cast<std::size_t>(head) * s + i) * d],
                          &in[1].data[(static_cast<std::size_t>(head) * s + key) * d], d);
            }
          const float two = 2.0f, one = 1.0f;
          std::memcpy(in[3].data.data(), &two, sizeof two);
          std::memcpy(in[4].data.data(), &one, sizeof one);
          const std::string variant = expect_close(*find_backend(name), p, in, 0.03, bh > 2 ? 2000 : 0);
          EXPECT_EQ(variant.find("_vtpass") != std::string::npos, std::string(vt) == "pass" || d == 256) << variant;
        }
}

// Scores that grow along the keys: key j's entries are ±2^(-4 + 8j/s) in e4m3 (descale 1), so a
// row's max keeps passing the kernel's lag for moving its reference max (0.5 in log2 units) and
// O is rescaled throughout, while between moves P runs up to 2^8.5 against e4m3's 448. (Here
// almost every warp has a row that moves; the skip of an all-unmoved warp is what U(-1, 1) inputs
// take, in MatchesTheDequantisedReference.)
TEST(GpuFlashFp8, GrowingScoresMoveTheReferenceMax) {
  ASSAY_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "the FP8 kernel runs on compute capability 9.0 only";
  std::mt19937 rng(11);
  for (const char* name : {"assay@wgmma_m64", "assay@wgmma_m128"})
    for (int d : {64, 128, 256})
      for (int causal : {0, 1}) {
        const int s = 700;
        const AttentionProblem p(1, 2, s, d, causal != 0, DType::f8e4m3);
        auto in = p.make_inputs(13);
        for (std::size_t i = 0; i < in[1].numel(); ++i) {
          const int key = static_cast<int>((i / static_cast<std::size_t>(d)) % s);
          const float mag = std::exp2(-4.0f + 8.0f * static_cast<float>(key) / s);
          in[1].data[i] = std::byte{float_to_e4m3_bits(rng() % 2 ? mag : -mag)};
        }
        const float one = 1.0f;
        std::memcpy(in[4].data.data(), &one, sizeof one);  // K's descale
        expect_close(*find_backend(name), p, in, 0.03);
      }
}

// The 224-key instance (d = 128, two consumers, V by the pre-pass), pinned by ASSAY_FP8_BLOCK_KEYS
// at lengths its cost model would give 128 too: s = 1 and blocks that end inside s or the
// diagonal, causal and not, and the reference max moving throughout (keys growing as above). A
// value other than 128 or 224 is an input error naming the variable.
TEST(GpuFlashFp8, KeyBlocksOf224MatchTheReference) {
  ASSAY_REQUIRE_GPU();
  if (!hopper()) GTEST_SKIP() << "the FP8 kernel runs on compute capability 9.0 only";
  const ScopedEnv keys("ASSAY_FP8_BLOCK_KEYS", "224");
  const ScopedEnv pre_pass("ASSAY_FP8_VT", "pass");  // the 224-key blocks read Vt from the pre-pass
  std::mt19937 rng(17);
  for (int causal : {0, 1})
    for (auto [bh, s] : {std::pair{1024, 1}, std::pair{1024, 223}, std::pair{512, 449}, std::pair{128, 1000},
                         std::pair{64, 2049}})
      for (bool growing : {false, true}) {
        const AttentionProblem p(1, bh, s, 128, causal != 0, DType::f8e4m3);
        auto in = p.make_inputs(21);
        if (growing) {
          for (std::size_t i = 0; i < in[1].numel(); ++i) {
            const int key = static_cast<int>((i / 128) % static_cast<std::size_t>(s));
            const float mag = std::exp2(-4.0f + 8.0f * static_cast<float>(key) / s);
            in[1].data[i] = std::byte{float_to_e4m3_bits(rng() % 2 ? mag : -mag)};
          }
          const float one = 1.0f;
          std::memcpy(in[4].data.data(), &one, sizeof one);
        }
        const std::string variant = expect_close(*find_backend("assay@wgmma_m128"), p, in, 0.03, 2000);
        EXPECT_EQ(variant, "flash_fp8_wgmma_m128n224_d128_vtpass") << p.shape_string();
      }
  setenv("ASSAY_FP8_BLOCK_KEYS", "256", 1);
  const AttentionProblem p(1, 512, 300, 128, false, DType::f8e4m3);
  try {
    find_backend("assay")->instantiate(p, p.make_inputs(1));
    ADD_FAILURE() << "ASSAY_FP8_BLOCK_KEYS=256 ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ASSAY_FP8_BLOCK_KEYS"), std::string::npos) << e.what();
  }
}

// Pinned to a configuration the FP8 path does not have: skipped with the reason, not run on
// something else.
TEST(GpuFlashFp8, OtherConfigurationsSkipWithTheReason) {
  ASSAY_REQUIRE_GPU();
  const AttentionProblem p(1, 1, 64, 64, false, DType::f8e4m3);
  for (const char* name : {"assay@flash_m64", "assay@reference"}) {
    try {
      find_backend(name)->instantiate(p, p.make_inputs(1));
      ADD_FAILURE() << name << " ran f8e4m3";
    } catch (const SkipError& e) {
      EXPECT_NE(std::string(e.what()).find("FP8 wgmma kernel only"), std::string::npos) << e.what();
    }
  }
  const AttentionProblem d96(1, 1, 64, 96, false, DType::f8e4m3);
  if (hopper()) {
    try {
      find_backend("assay")->instantiate(d96, d96.make_inputs(1));
      ADD_FAILURE() << "d = 96 ran";
    } catch (const SkipError& e) {
      EXPECT_NE(std::string(e.what()).find("d = 64, 128 or 256"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
