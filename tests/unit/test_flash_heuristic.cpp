// The flash attention family's host side without a GPU: what it takes, the configuration the
// shape heuristic picks, and the names a results document records.
#include <gtest/gtest.h>

#include <utility>

#include "kernels/attention/attention_configs.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "kernels/attention/flash_attention.hpp"
#include "kernels/attention/flash_attention_fp8.hpp"
#endif

using namespace assay;

TEST(FlashConfigs, PinnedNamesAreKnown) {
  for (const char* c : {"wgmma_m64", "wgmma_m128", "wgmma_m64_kv2", "wgmma_m64_kv8", "flash_m64", "flash_m128", "reference"})
    EXPECT_TRUE(kernels::is_attention_config(c)) << c;
  EXPECT_FALSE(kernels::is_attention_config("wgmma_128x256"));  // a GEMM configuration
  EXPECT_FALSE(kernels::is_attention_config("wgmma_m128_kv2"));  // split-KV is 64 rows only
  EXPECT_FALSE(kernels::is_attention_config("auto"));
}

#ifdef ASSAY_HAVE_CUDA
namespace {
kernels::FlashAttentionArgs shape(int heads, int s, int d) {
  kernels::FlashAttentionArgs a;
  a.heads = heads;
  a.s = s;
  a.d = d;
  return a;
}
}  // namespace

TEST(FlashHeuristic, TakesHalfTypesAndThreeHeadDims) {
  for (bool hopper : {false, true}) {
    EXPECT_EQ(kernels::flash_attention_unsupported(DType::f16, 8, 512, 64, hopper), "");
    EXPECT_EQ(kernels::flash_attention_unsupported(DType::bf16, 1, 1, 128, hopper), "");
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f32, 8, 512, 64, hopper), "");
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f8e4m3, 8, 512, 64, hopper), "");
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f16, 8, 512, 96, hopper), "");
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f16, 8, 512, 512, hopper), "");
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f16, 65536, 512, 64, hopper), "");  // grid.y
    EXPECT_NE(kernels::flash_attention_unsupported(DType::f16, 8, 0, 64, hopper), "");
  }
  // d = 256: the wgmma kernel's 128-row instance only.
  EXPECT_EQ(kernels::flash_attention_unsupported(DType::bf16, 16, 8192, 256, true), "");
  EXPECT_NE(kernels::flash_attention_unsupported(DType::f16, 16, 8192, 256, false).find("Hopper"), std::string::npos);
  EXPECT_EQ(kernels::flash_config_unsupported(kernels::flash_config_named("wgmma_m128"), 256), "");
  for (const char* c : {"wgmma_m64", "wgmma_m64_kv2", "flash_m64", "flash_m128"})
    EXPECT_NE(kernels::flash_config_unsupported(kernels::flash_config_named(c), 256), "") << c;
  for (const char* c : {"wgmma_m64", "wgmma_m128", "wgmma_m64_kv4", "flash_m64", "flash_m128"})
    EXPECT_EQ(kernels::flash_config_unsupported(kernels::flash_config_named(c), 128), "") << c;
  // No instance: split-KV on 128 rows or mma.sync, 3 shares, 32 rows (a caller's own FlashConfig).
  for (const kernels::FlashConfig& c : {kernels::FlashConfig{true, 128, 2}, kernels::FlashConfig{false, 64, 2},
                                        kernels::FlashConfig{true, 64, 3}, kernels::FlashConfig{true, 32, 1}})
    EXPECT_NE(kernels::flash_config_unsupported(c, 64), "") << c.name(64);
}

TEST(FlashHeuristic, PicksByDeviceHeadDimAndGrid) {
  // Not Hopper: the mma.sync family, 64 rows, at any shape.
  EXPECT_FALSE(kernels::choose_flash_config(shape(512, 4096, 128), 108, false).wgmma);
  EXPECT_EQ(kernels::choose_flash_config(shape(512, 4096, 128), 108, false).rows, 64);
  // Hopper, d = 64: one consumer warp group, small grid or large.
  EXPECT_EQ(kernels::choose_flash_config(shape(8, 512, 64), 132, true).rows, 64);
  EXPECT_EQ(kernels::choose_flash_config(shape(768, 640, 64), 132, true).rows, 64);
  // Hopper, d = 128: 64-row blocks while they fit one wave (16·8 = 128 <= 132), two consumers'
  // 128-row blocks beyond (17·8 = 136: a second wave of 64-row blocks would cost a whole chain).
  EXPECT_EQ(kernels::choose_flash_config(shape(16, 512, 128), 132, true).rows, 64);
  EXPECT_EQ(kernels::choose_flash_config(shape(17, 512, 128), 132, true).rows, 128);
  EXPECT_EQ(kernels::choose_flash_config(shape(6, 2048, 128), 132, true).rows, 128);   // 192 64-row blocks
  EXPECT_EQ(kernels::choose_flash_config(shape(3, 2048, 128), 132, true).rows, 64);    // 96
  EXPECT_EQ(kernels::choose_flash_config(shape(32, 512, 128), 132, true).rows, 128);
  EXPECT_EQ(kernels::choose_flash_config(shape(32, 640, 128), 132, true).rows, 128);
  EXPECT_TRUE(kernels::choose_flash_config(shape(32, 640, 128), 132, true).wgmma);
  // Hopper, s <= 64 and enough 64-row blocks to fill the SMs: the mma.sync kernel (a 128-key wgmma
  // block would be mostly padding); wgmma when they would not fill the SMs (latency-bound), and
  // for 64 < s <= 128, causal or not.
  EXPECT_FALSE(kernels::choose_flash_config(shape(1024, 16, 128), 132, true).wgmma);
  EXPECT_FALSE(kernels::choose_flash_config(shape(132, 64, 64), 132, true).wgmma);
  EXPECT_TRUE(kernels::choose_flash_config(shape(131, 64, 64), 132, true).wgmma);  // 131 blocks < 132 SMs
  kernels::FlashAttentionArgs causal = shape(1024, 128, 64);
  causal.causal = true;
  EXPECT_TRUE(kernels::choose_flash_config(causal, 132, true).wgmma);
  EXPECT_EQ(kernels::choose_flash_config(shape(1024, 128, 128), 132, true).rows, 128);
  EXPECT_EQ(kernels::choose_flash_config(shape(32, 128, 128), 132, true).rows, 64);  // 32 blocks of 128 rows
  // Hopper, d = 256: the one instance (two consumers, no split) at any grid, short or long.
  for (auto [heads, s] : {std::pair{1, 1}, std::pair{1, 512}, std::pair{1024, 64}, std::pair{16, 8192}}) {
    const kernels::FlashConfig c = kernels::choose_flash_config(shape(heads, s, 256), 132, true);
    EXPECT_TRUE(c.wgmma && c.rows == 128 && c.splits == 1) << heads << " x " << s;
    EXPECT_EQ(c.name(256), "flash_wgmma_m128n80_d256");
  }
}

// Split-KV: only where the query blocks leave SMs idle, the shares minimising serial key blocks
// plus the merge's 1.5, at most 4, only if every cluster is resident at once.
TEST(FlashHeuristic, SplitsKeysWhereQueryBlocksLeaveSmsIdle) {
  auto splits = [](int heads, int s, int d, kernels::ClusterCapacity cap = {}) {
    return kernels::choose_flash_config(shape(heads, s, d), 132, true, cap).splits;
  };
  EXPECT_EQ(splits(8, 512, 64), 2);     // 64 blocks of 4 key blocks: 2 + 1.5 < 4
  EXPECT_EQ(splits(8, 256, 64), 1);     // 2 key blocks: 1 + 1.5 > 2
  EXPECT_EQ(splits(8, 128, 64), 1);     // one key block
  EXPECT_EQ(splits(1, 1024, 64), 4);    // 16 blocks of 8: 4 shares (64 CTAs); 8 is never tried
  EXPECT_EQ(splits(1, 4096, 128), 2);   // 64 blocks: 4 shares would need 256 SMs
  EXPECT_EQ(splits(8, 1024, 64), 1);    // 128 blocks already fill the SMs
  EXPECT_EQ(splits(16, 4096, 128), 1);  // the long shapes: never
  EXPECT_EQ(splits(768, 640, 64), 1);
  // The device holds fewer clusters of 4 than there are query blocks: 2 shares instead.
  auto holds = [](int most4) { return [most4](int s) { return s == 4 ? most4 : 66; }; };
  EXPECT_EQ(splits(2, 1024, 128, holds(31)), 2);
  EXPECT_EQ(splits(2, 1024, 128, holds(32)), 4);
  EXPECT_EQ(splits(1, 1024, 64, [](int) { return 0; }), 1);  // the runtime cannot say
  // Non-Hopper devices and the mma.sync kernel never split.
  EXPECT_EQ(kernels::choose_flash_config(shape(1, 4096, 128), 132, false).splits, 1);
}

TEST(FlashHeuristic, ConfigurationNamesSayFamilyTileAndHeadDim) {
  EXPECT_EQ((kernels::FlashConfig{true, 128}.name(128)), "flash_wgmma_m128n128_d128");
  EXPECT_EQ((kernels::FlashConfig{false, 64}.name(64)), "flash_mma_m64n64_d64");
  EXPECT_EQ((kernels::FlashConfig{true, 128, 4}.name(64)), "flash_wgmma_m128n128_d64_kv4");
  // Every pinned name maps to the configuration it spells.
  for (std::string_view n : kernels::kAttentionConfigNames) {
    if (n == "reference") continue;
    const kernels::FlashConfig c = kernels::flash_config_named(std::string(n));
    const std::string spelled = (c.wgmma ? "wgmma_m" : "flash_m") + std::to_string(c.rows) +
                                (c.splits > 1 ? "_kv" + std::to_string(c.splits) : "");
    EXPECT_EQ(spelled, n);
  }
}
namespace {

// An FP8 problem's shape as the heuristic sees it.
kernels::FlashFp8Args fp8(int heads, int s, int d, bool causal = false) {
  kernels::FlashFp8Args a;
  a.heads = heads;
  a.s = s;
  a.d = d;
  a.causal = causal;
  return a;
}

}  // namespace

// The FP8 kernel: d 64, 128, 256; two consumers once 64-row blocks exceed one wave; V transposed
// in the kernel (d <= 128) up to 2048 keys per query tile on average (a causal tile half of s), by
// the pre-pass beyond.
TEST(FlashFp8Heuristic, ConsumersAndTransposition) {
  EXPECT_EQ(kernels::flash_fp8_unsupported(8, 512, 64), "");
  EXPECT_EQ(kernels::flash_fp8_unsupported(1, 1, 256), "");
  EXPECT_NE(kernels::flash_fp8_unsupported(8, 512, 96), "");
  EXPECT_NE(kernels::flash_fp8_unsupported(65536, 512, 64), "");
  const auto mission = kernels::choose_flash_fp8_config(fp8(8, 512, 64), 132);  // 8 x 8 blocks of 64 rows
  EXPECT_EQ(mission.consumers, 1);
  EXPECT_TRUE(mission.vt_in_kernel);
  EXPECT_EQ(kernels::flash_fp8_workspace_bytes(mission, 8, 512, 64), 0u);
  // One consumer while its 64-row CTAs fit one wave (one per SM), two beyond: 8 x 16 = 128 CTAs
  // of 64 rows at (8, 1024), 8 x 32 = 256 at (8, 2048), 12 x 16 = 192 at (12, 1024).
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(8, 1024, 128), 132).consumers, 1);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(8, 2048, 128), 132).consumers, 2);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(12, 1024, 64), 132).consumers, 2);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(132, 64, 64), 132).consumers, 1);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(133, 64, 64), 132).consumers, 2);
  const auto longer = kernels::choose_flash_fp8_config(fp8(64, 4096, 64), 132);
  EXPECT_EQ(longer.consumers, 2);
  EXPECT_FALSE(longer.vt_in_kernel);
  EXPECT_EQ(kernels::flash_fp8_workspace_bytes(longer, 64, 4000, 64), 64u * 64 * 4096);  // s padded to 128
  EXPECT_EQ(longer.name(64), "flash_fp8_wgmma_m128n128_d64_vtpass");
  // d = 256 transposes in a pre-pass even in one wave; a pinned count is kept.
  const auto d256 = kernels::choose_flash_fp8_config(fp8(2, 300, 256), 132, 2);
  EXPECT_EQ(d256.consumers, 2);
  EXPECT_FALSE(d256.vt_in_kernel);
  // In the kernel up to 2048 keys per query tile on average (causal: half of s), whatever the
  // grid; the pre-pass beyond, however few the CTAs.
  EXPECT_TRUE(kernels::choose_flash_fp8_config(fp8(256, 1024, 128), 132).vt_in_kernel);  // 15.5 waves
  EXPECT_TRUE(kernels::choose_flash_fp8_config(fp8(2000, 512, 64), 132).vt_in_kernel);
  EXPECT_TRUE(kernels::choose_flash_fp8_config(fp8(64, 2048, 128), 132).vt_in_kernel);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(64, 2049, 128), 132).vt_in_kernel);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(1, 2049, 64), 132).vt_in_kernel);  // under a wave
  EXPECT_TRUE(kernels::choose_flash_fp8_config(fp8(64, 4096, 128, true), 132).vt_in_kernel);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(64, 4098, 128, true), 132).vt_in_kernel);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(4, 8192, 128, true), 132).vt_in_kernel);
}

// ASSAY_FP8_VT's pin overrides the automatic choice both ways, takes the 224-key block only where V
// comes from the pre-pass, and cannot move d = 256 into the kernel.
TEST(FlashFp8Heuristic, TranspositionPinned) {
  using kernels::Fp8VtPin;
  const auto kernel = kernels::choose_flash_fp8_config(fp8(32, 8192, 128), 132, 0, 0, Fp8VtPin::in_kernel);
  EXPECT_TRUE(kernel.vt_in_kernel);
  EXPECT_EQ(kernel.block_keys, 128);
  EXPECT_EQ(kernel.name(128), "flash_fp8_wgmma_m128n128_d128");
  // A pinned 224-key block needs the pre-pass: kept with it, dropped with the kernel.
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(32, 8192, 128), 132, 0, 224, Fp8VtPin::in_kernel).block_keys, 128);
  const auto pass = kernels::choose_flash_fp8_config(fp8(8, 1024, 128), 132, 2, 224, Fp8VtPin::pre_pass);
  EXPECT_FALSE(pass.vt_in_kernel);
  EXPECT_EQ(pass.block_keys, 224);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(8, 512, 64), 132, 0, 0, Fp8VtPin::pre_pass).vt_in_kernel);
  EXPECT_FALSE(kernels::choose_flash_fp8_config(fp8(2, 300, 256), 132, 0, 0, Fp8VtPin::in_kernel).vt_in_kernel);
}

// Key blocks of 224 or 128 (d = 128, two consumers, V by the pre-pass) by the cost model: 224 where
// its blocks' lower fixed cost outweighs the keys a partial last block masks and its longer
// prologue (measured: 0.947-0.965 of the cycles at s 4000-16384 non-causal, 1.03-1.12 at s <= 2500,
// causal 1.03-1.11 up to 4096 and level at 8192); 128 everywhere else.
TEST(FlashFp8Heuristic, KeyBlocksByCost) {
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(8192, false), 224);
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(4000, false), 224);   // 18 blocks of 224 mask 32 keys
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(4096, false), 128);   // 19 mask 160: level, so 128
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(2048, false), 128);
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(1, false), 128);
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(8192, true), 128);    // within the causal margin
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(16384, true), 224);
  EXPECT_EQ(kernels::fp8_block_keys_by_cost(1LL << 30, true), 224);  // sampled tiles: no 2^23-step loop
  const auto long8k = kernels::choose_flash_fp8_config(fp8(32, 8192, 128), 132);
  EXPECT_EQ(long8k.block_keys, 224);
  EXPECT_EQ(long8k.name(128), "flash_fp8_wgmma_m128n224_d128_vtpass");
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(32, 8192, 128), 132, 0, 128).block_keys, 128);  // pinned
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(64, 4096, 128), 132, 0, 224).block_keys, 224);
  // No 224-key instance: d = 64 or 256, one consumer, V transposed in the kernel (2048 keys here).
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(32, 8192, 64), 132, 0, 224).block_keys, 128);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(16, 8192, 256), 132).block_keys, 128);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(32, 8192, 128), 132, 1).block_keys, 128);
  EXPECT_EQ(kernels::choose_flash_fp8_config(fp8(1, 2048, 128), 132, 2, 224).block_keys, 128);
}
#endif
