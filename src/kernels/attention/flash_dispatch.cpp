// The flash attention family's host side: what it takes, the shape heuristic, the launch.
#include <algorithm>
#include <cstdint>

#include "kernels/attention/flash_attention.hpp"
#include "kernels/attention/flash_attention_fp8.hpp"
#include "kernels/attention/hopper/flash_hopper.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"

namespace assay::kernels {

namespace {
bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }
}  // namespace

std::string FlashConfig::name(int d) const {
  // nNN: keys per K/V block.
  const int keys = wgmma ? attention_hopper::block_keys(d) : 64;
  return std::string(wgmma ? "flash_wgmma_m" : "flash_mma_m") + std::to_string(rows) + "n" + std::to_string(keys) + "_d" +
         std::to_string(d) + (splits > 1 ? "_kv" + std::to_string(splits) : "");
}

FlashConfig flash_config_named(const std::string& name) {
  FlashConfig c{name.rfind("wgmma", 0) == 0, name.find("128") != std::string::npos ? 128 : 64};
  const auto kv = name.find("_kv");
  if (kv != std::string::npos) c.splits = std::stoi(name.substr(kv + 3));
  return c;
}

std::string flash_attention_unsupported(DType dtype, long long heads, long long s, long long d, bool hopper) {
  if (dtype != DType::f16 && dtype != DType::bf16) return "the flash kernel takes f16 and bf16";
  if (d == 256 && !hopper) return "the flash kernel takes d = 256 on Hopper (wgmma) only; mma.sync takes d = 64 or 128";
  if (d != 64 && d != 128 && d != 256) return "the flash kernel takes d = 64, 128 or 256 (256 on Hopper only)";
  if (heads < 1 || heads > 65535) return "the flash kernel takes 1 <= b*h <= 65535 (grid.y)";
  if (s < 1 || s > (1 << 30)) return "the flash kernel takes 1 <= s <= 2^30";
  return {};
}

std::string flash_config_unsupported(const FlashConfig& c, long long d) {
  if (c.rows != 64 && c.rows != 128) return "the flash kernels have 64- and 128-row blocks only";
  if (c.splits != 1 && (!c.wgmma || c.rows != 64 || (c.splits != 2 && c.splits != 4 && c.splits != 8)))
    return "split-KV runs on the 64-row wgmma kernel only, in 2, 4 or 8 shares";
  if (d == 256 && (!c.wgmma || c.rows != 128 || c.splits != 1))
    return "d = 256 runs on the 128-row wgmma kernel only (wgmma_m128): no mma.sync, 64-row or split-KV instance";
  return {};
}

int choose_flash_splits(const FlashAttentionArgs& a, int rows, int sm_count, const ClusterCapacity& capacity) {
  if (rows != 64) return 1;  // split-KV is compiled for 64-row blocks only
  const long long ctas = static_cast<long long>(a.heads) * ((a.s + rows - 1) / rows);
  const long long kv = (a.s + 127) / 128;
  int best = 1;
  double best_cost = static_cast<double>(kv);
  for (int splits : {2, 4}) {
    if (ctas * splits > sm_count) break;
    if (capacity && capacity(splits) < ctas) continue;
    const double cost = static_cast<double>((kv + splits - 1) / splits) + 1.5;
    if (cost < best_cost) {
      best = splits;
      best_cost = cost;
    }
  }
  return best;
}

ClusterCapacity device_cluster_capacity(const FlashAttentionArgs& a) {
  // At one CTA per SM (H100: 66 clusters of 2, 30 of 4). The one-consumer
  // d = 64 kernel fits two per SM, and the runtime would count those (62 of 4), but 128 split
  // CTAs then share SMs: at (1, 4, 512, 64) 4 shares ran 9.09 µs against 2 shares' 8.51.
  return [a](int splits) { return attention_hopper::max_active_clusters(a, splits); };
}

FlashConfig choose_flash_config(const FlashAttentionArgs& a, int sm_count, bool hopper, const ClusterCapacity& capacity) {
  if (!hopper) return FlashConfig{false, 64};
  if (a.d == 256) return FlashConfig{true, 128};  // the one d = 256 instance
  // d = 64: one consumer warp group per block won at every measured shape, 64 to 2304 blocks
  // (a block's K/V reuse matters less than its latency there; three CTAs share an SM). d = 128:
  // 64-row blocks (one consumer, split over keys where they leave SMs idle) while they fit one
  // wave, one CTA per SM; beyond, 128-row blocks of two consumers, which cover the rows of two in
  // one chain of about 1.25x the time. Measured (H100, cold, µs, 64 / 128 rows, as the FP8
  // kernel's rule): (1, 3, 2048, 128) 26.6 / 30.9 (96 64-row CTAs); (1, 6, 2048) 49.1 / 33.5 and
  // causal 34.3 / 32.2 (192); (1, 12, 1024) 29.7 / 22.4 (192); (1, 8, 1024) 17.8 / 20.6 (128).
  const long long small_ctas = static_cast<long long>(a.heads) * ((a.s + 63) / 64);
  FlashConfig wgmma{true, a.d == 128 && small_ctas > sm_count ? 128 : 64};
  wgmma.splits = choose_flash_splits(a, wgmma.rows, sm_count, capacity);
  if (a.s > 128) return wgmma;
  // s <= 128, one 128-key block for the wgmma kernel (docs/kernels/attention.md, short sequences:
  // fitted on 56 measured points, b·h 8 to 4096, then checked on 35 others):
  // - fewer mma.sync blocks (64 query rows each) than SMs: the call is latency-bound, and the
  //   wgmma kernel's single block per head has less latency (0.81-1.01x the mma.sync time);
  // - else s <= 64: most of a 128-key block would be padding, which the mma.sync kernel's 64-key
  //   blocks skip (up to 0.5x the wgmma time);
  // - else the wgmma kernel. (Causal calls at large b·h ran up to 6% faster on the mma.sync
  //   kernel, at b·h 240-256 up to 12% slower: no rule on causality held.)
  if (small_ctas >= sm_count && a.s <= 64) return FlashConfig{false, 64};
  return wgmma;
}

cudaError_t launch_flash_attention(const FlashAttentionArgs& a, const FlashConfig& c, cudaStream_t stream) {
  if (!flash_attention_unsupported(a.dtype, a.heads, a.s, a.d, c.wgmma).empty() ||
      !flash_config_unsupported(c, a.d).empty() || !aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) || !aligned16(a.o))
    return cudaErrorInvalidValue;
  if (!c.wgmma) {
    // Strided tensors: every row start 16-byte aligned (cp.async and the output's 4-byte stores).
    for (const HeadStrides* h : {&a.q_strides, &a.k_strides, &a.v_strides, &a.o_strides})
      if (h->row && ((h->row | h->head | h->batch) % 8 != 0)) return cudaErrorInvalidValue;
    return detail::launch_flash_mma(a, c.rows, stream);
  }
  if (a.strided()) return cudaErrorInvalidValue;  // the wgmma kernel reads dense tensors only
  int device = 0;
  const cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) return err;
  if (!hopper::device_facts(device).hopper) return cudaErrorInvalidValue;
  return attention_hopper::launch(a, c.rows / 64, c.splits, stream);
}

std::string flash_fp8_unsupported(long long heads, long long s, long long d) {
  if (d != 64 && d != 128 && d != 256) return "the FP8 flash kernel takes d = 64, 128 or 256";
  if (heads < 1 || heads > 65535) return "the FP8 flash kernel takes 1 <= b*h <= 65535 (grid.y)";
  if (s < 1 || s > (1 << 30)) return "the FP8 flash kernel takes 1 <= s <= 2^30";
  return {};
}

std::string FlashFp8Config::name(int d) const {
  return "flash_fp8_wgmma_m" + std::to_string(64 * consumers) + "n" + std::to_string(block_keys) + "_d" + std::to_string(d) +
         (vt_in_kernel ? "" : "_vtpass");
}

// Key blocks of 224 or 128 for one query tile's keys, by a cost model in units of one key's work: a
// tile of L keys costs ceil(L / n)·(n + 21) + 1.4·n with blocks of n keys. 21: a block's fixed work
// (the row max and sum over the quad, the barrier and wgmma waits, the rescale vote), which larger
// blocks spread over more keys; 1.4·n: the prologue and epilogue a CTA does not overlap (the first
// S and its softmax, the last P·V), which grow with the block. Against it, ceil() charges the keys
// a last, partial block computes and masks. Fitted on 7 non-causal lengths (s 1024-16384, H100,
// `assay ab`, cycles: 224 against 128 from 1.12 to 0.953) and checked on 4 others within 1%
// (docs/kernels/attention.md, "FP8 key blocks"). Causal tiles see L = min(128(t + 1), s) keys (the
// model overstates 224's cost there by up to 10% at s = 1024, and understates it by 1.5% at 8192).
// 224 must win by 2% to be chosen: about the model's error, so a level call keeps 128.
int fp8_block_keys_by_cost(long long s, bool causal) {
  const long long tiles = (s + 127) / 128;
  const long long step = tiles > 4096 ? tiles / 4096 : 1;  // a sample of the tiles is enough for a ratio
  double cost[2] = {0.0, 0.0};
  const int keys[2] = {128, 224};
  for (long long t = 0; t < tiles; t += step) {
    const long long L = causal ? std::min(128 * (t + 1), s) : s;
    for (int i = 0; i < 2; ++i)
      cost[i] += static_cast<double>((L + keys[i] - 1) / keys[i]) * (keys[i] + 21.0) + 1.4 * keys[i];
  }
  return cost[1] < cost[0] * 0.98 ? 224 : 128;
}

FlashFp8Config choose_flash_fp8_config(const FlashFp8Args& a, int sm_count, int consumers, int block_keys, Fp8VtPin vt) {
  FlashFp8Config c;
  // One consumer warp group (64-row CTAs) while those CTAs fit one wave, two (128-row CTAs, sharing
  // each K/V block) beyond. The one-consumer instances hold 140-173 registers at 256 threads, one
  // CTA per SM, and a lone consumer has no partner to fill its waits: a second wave of them costs
  // a whole second chain, where a 128-row CTA's two consumers cover the same rows in one wave for
  // about 1.25x one chain. Measured (H100, cold, µs, one / two consumers): (1, 8, 512, 64) 8.9 /
  // 11.3 (64 CTAs); (1, 3, 2048, d 64 / 128) 19.7 / 27.2 and 29.2 / 34.8 (96 CTAs); (1, 6, 2048)
  // 36.2 / 26.5 and 54.7 / 35.2 (192 CTAs); (1, 12, 1024, 128) 32.8 / 22.7; long shapes 1045 / 766
  // at (4, 16, 4096, 128). Causal grids likewise (2048 keys, h 6 / 8 / 12, d 128: 36.0 / 35.2, 45.1
  // / 35.4, 56.7 / 49.2); its one exception, (1, 6, 2048, 64) causal 25.5 / 27.0, is the light
  // tiles of a causal second wave.
  const long long small_ctas = static_cast<long long>(a.heads) * ((a.s + 63) / 64);
  c.consumers = consumers > 0 ? consumers : (small_ctas > sm_count ? 2 : 1);
  // V's transposition. The pre-pass is one pass over V, b·h·s·d bytes, the kernel's work b·h·s²·d
  // (half when causal): the pre-pass's share falls as the keys a query tile sees grow, while the
  // in-kernel transposition costs each key block about the same (the producer's ldmatrix/stmatrix
  // work and its wait on the ring). Measured (H200, `assay ab`, 6 rounds, in the kernel against the
  // pre-pass, time ratio): keys per tile 1024 (4, 16, 1024, d 64 / 128) 0.886 / 0.882; 2048 ((4,
  // 16, 4096, 128) causal) 0.99, level; 4096: 1.044 non-causal, 1.063 ((2, 16, 8192) causal); 8192
  // 1.144 (against the pre-pass's 224-key blocks). So the kernel up to 2048 keys per tile on
  // average, whatever the grid: the share argument does not depend on it, and small grids at
  // short lengths favour the kernel more (the older transposition already won there: 1 wave
  // (1, h, 1024, 128) 25.1 / 27.1 µs, 2 waves 42.7 / 43.7). d = 256: the
  // pre-pass only (the transposition takes one swizzle atom across d, and a 3-stage ring with its
  // staging slots would not fit in shared memory).
  const double keys_per_tile = static_cast<double>(a.s) * (a.causal ? 0.5 : 1.0);
  const bool in_kernel_pays = keys_per_tile <= 2048.0;
  c.vt_in_kernel = a.d <= 128 && (vt == Fp8VtPin::automatic ? in_kernel_pays : vt == Fp8VtPin::in_kernel);
  if (a.d == 128 && c.consumers == 2 && !c.vt_in_kernel)
    c.block_keys = block_keys == 128 || block_keys == 224 ? block_keys : fp8_block_keys_by_cost(a.s, a.causal);
  return c;
}

std::size_t flash_fp8_workspace_bytes(const FlashFp8Config& c, long long heads, long long s, long long d) {
  if (c.vt_in_kernel) return 0;
  return static_cast<std::size_t>(heads) * static_cast<std::size_t>(d) * static_cast<std::size_t>((s + 127) / 128 * 128);
}

}  // namespace assay::kernels
