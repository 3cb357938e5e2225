#include "kernels/gemm/tile_heuristic.hpp"

#include <cmath>

namespace assay::kernels::hopper {

namespace {

// Relative throughput per output column of a tile width, fitted to the sweeps at 4096^3 and
// 8192^3 (bench/notes/gemm.md, v2). f16/bf16: 192 matches 256 (its fifth stage makes up for
// the narrower tile), 128 reaches 0.84 of it, 64 about 0.55. fp8 (v5c/v5d): 192 (one partial
// set per warp group, the two alternating) runs 1.10x the column rate of 128 (quads), 176 1.08x
// (clusters of 2 for both), 208 1.08 (in pairs: 1.086 at 4096^3, v9; the tensor core's rate is
// the same at every width, so widths differ by their L2 traffic and waves): 208 takes 4096^3
// (640 tiles fill 4.85 of 5 waves, 1040 column-waves against 176's 1056 and 192's 1152), 192
// 3072^3 and from 6144^3 up (208 ran 1% behind it at 6144^3), 128 2048^3; 64 0.68; 256 is not built.
// f16/bf16 192x192 (three consumer warp groups, v7): per output element 1.01 of 128x256's rate
// (at 3072^3, with the same work per CTA as 128x192's three waves, 1.8-2.4% faster than it).
// f16/bf16 64x128 (one consumer warp group): 0.58, just above 128x64's 0.55, and only where it pads
// the output less than 128x64 does (m % 128 in 1..64, mostly: choose_tile). Fitted on 32 random
// shapes with m from 16 to 1448 (H200): it ran 0.95-1.20x as fast as 128x64 at the same waves, the
// losses where it pads as much or more; above 0.65 it displaced split-K where split-K ran faster
// (docs/kernels/hopper-gemm.md, "The 64-row tile"). A 64 x 256 tile was built and lost everywhere.
double tile_efficiency(bool fp8, int tile_m, int tile_n) {
  if (tile_m == 192) return 1.01;
  if (tile_m == 64) return 0.58;
  if (fp8) return tile_n == 192 ? 1.10 : tile_n == 208 || tile_n == 176 ? 1.08 : tile_n == 128 ? 1.0 : 0.68;
  return tile_n == 256 ? 1.0 : tile_n == 192 ? 0.99 : tile_n == 128 ? 0.84 : 0.55;
}

// Clusters of 2 (B multicast) pay off for fp8's 128-wide tile once a CTA walks many tiles
// (8192^3: +5-10%) and are even at 4096^3, and for the 176-wide one (4096^3: 2-5% over single
// CTAs), and for the 208-wide one (4096^3: 3% over single CTAs, v9); the 192-wide fp8 tile is as
// fast alone at three waves (v5, v5d) and level at 12 (6144^3, v9), and 1.4% faster paired at 21
// (8192^3: the median of 15 cold runs in three calls, v9 and v12, at a higher clock): so 128 and 192
// pair from eight waves (bench/notes/gemm.md).
// f16/bf16's 256-wide tile, its epilogue behind the next tile (v6), runs 1.5-2% faster in
// clusters of 2 at 4096^3 (four waves: B's L2 traffic halved), 5% slower at 2048^3 (one wave);
// the 192-wide one 1% slower at 3072^3 (three waves), and at 8192^3 (16 waves) the 256-wide
// pair ran 3-10% slower than alone in two sweeps (v5d, v6). So clusters at four to seven waves.
constexpr long long kClusterMinWaves = 8;
constexpr long long kClusterWaves16[2] = {4, 8};  // [from, to)
// f16/bf16 over few row tiles (m up to 512: two or four tiles of 128 rows) stream B: each of its
// tiles serves at most four row tiles, and a CTA's loads are mostly B's. A pair of row tiles that
// multicasts B halves those loads. On 48 random shapes with m 129-448 (H200) the rule changes 14
// picks: 11 ran 0.80-0.96 of the time of the same tile alone, 3 level (0.99-1.01; geomean 0.900).
// Over three row tiles one CTA of a pair has no rows: there the 128 x 128 pair ran 1.25-1.68x the
// time alone (7 shapes; one row tile would leave the partner as empty). Held out: 20 random shapes
// whose pick it changes, 0.872 of the time (geomean; 16 at 0.75-0.97, 4 level at 0.99-1.01;
// docs/kernels/hopper-gemm.md, "Pairs over few row tiles"). The pair costs a fixed 0.2-1.5 us more
// than a single CTA (its barriers, the cluster launch), which a short B stream does not earn back:
// over k 128-1024 (24 shapes, m 150/240/420) it ran 1.01-1.22x the time of the tile alone on 22 of
// them; from k 2048 no pick it changed was slower by more than 1% (between 1024 and 2048 only k 1136
// and 1776 were measured: 0.92, 1.00). So from 32 K blocks. Measured at one or two waves: from
// kClusterWaves16's end (eight), where the 256-wide pair lost at 16, nothing was; the tiles stay alone. The
// 64-wide tile's pair was not measured there and stays alone.
constexpr long long kPairRowTilesMax = 4;
constexpr int kPairMinKBlocks = 32;
// Four row tiles (m 385-512) share B in one cluster of four, where the pair rule pairs them, the tile
// is 128 or 192 wide, and its tiles fit one wave of such clusters. On 30 random shapes (H200, m
// 385-512) with the 128- and 192-wide tiles' pairs picked, the four ran 0.81-1.01 of the pair's time
// where they fit (9 shapes, geomean 0.94) and 1.34-1.68 where they did not (124-132 tiles against
// about 120 CTAs of clusters of four: the GPCs' uneven SM counts). The 256-wide tile, whose B is a
// smaller share of its loads, ran 0.94-1.13 (5 shapes) and stays paired. Held out: 20 random shapes
// whose pick the rule changes, 0.980 of the pair's time in one session (0.80-1.12); its six extremes
// over three sessions 0.80-0.99, none slower (docs/kernels/hopper-gemm.md, "Clusters of four").
constexpr long long kQuadRowTiles = 4;

// f16/bf16 rows whose pitch is not a multiple of 32 bytes (k or n not a multiple of 16): every
// 128-byte row of a TMA box then starts inside a sector, and the single-CTA tiles, whose
// consumers wait on their loads, ran 1.3-1.75x slower than with 32-byte pitches (H100, m = 3000,
// n 7000/7008/7040, k 4000/4008: docs/kernels/hopper-gemm.md, "Pitches off 32 bytes"). Pairs,
// which bring B once for two CTAs, lose far less. So off 32 bytes every tile but the 64-wide one
// runs in pairs, and the narrower ones count as slower in proportion to the rows they load per
// output (a pair: tile_m + tile_n / 2 rows per K block): 128-wide 0.70, 192-wide 0.875, 256-wide
// and 192 x 192 1.0, fitted with the pair rule on 56 random shapes and that factorial (the same
// section). The 64-wide tile stays alone at its usual rate: its pair lost to it at m <= 300.
double split_row_efficiency(int tile_m, int tile_n) {
  if (tile_m == 192 || tile_n == 256) return 1.0;
  return tile_n == 192 ? 0.875 : tile_n == 128 ? 0.70 : 0.55;
}

// Split-K (f16/bf16, 128 x 128, 128 x 64 and 64 x 128 single CTAs, at most one wave of units): a
// tile's time counted in its K blocks, plus kFixedBlocks for its start and epilogue; a split tile adds
// kReduceBlocks, kReducePerSplit per further split (the partials' trip through L2 and the last
// split's sum, split_k.cuh) and kFullChipBlocks times the share of the SMs the units fill (with
// every SM busy, each CTA's loads run slower: a split that fills the chip lost to the unsplit
// tile at 17-27 K blocks). Fitted by the geometric mean of the pick's time against the best
// measured configuration on 36 random few-tile shapes (H200, 2, 3, 4, 6 and 8 splits of both
// tiles): 0.985 of the best, 0.96-0.98 fitted on either half and tried on the other
// (docs/kernels/hopper-gemm.md, "Split-K"). The 64 x 128 tile's splits take the same constants
// at its unsplit rate, but a larger full-chip term, kFullChipBlocks64: on 16 random shapes with
// m <= 192 and a deep K (DRAM-bound) the picks ran at 0.973 of the best measured configuration with
// 24, 0.981-0.984 with 32-48; with 24 the rule also split 64 x 640 x 1088 (17 K blocks) 18% slower than
// unsplit, which 32 does not (docs/kernels/hopper-gemm.md, "Split-K of the 64-row tile").
constexpr double kFixedBlocks = 8.0;
constexpr double kReduceBlocks = 4.0;
constexpr double kReducePerSplit = 2.0;
constexpr double kFullChipBlocks = 24.0;
constexpr double kFullChipBlocks64 = 32.0;
// The split counts that were measured, each a pinned configuration (wgmma_<tile>_k<S>) and a GPU
// test: the heuristic picks nothing that a sweep cannot pin. 5 and 7 were never measured.
constexpr int kSplitCounts[] = {2, 3, 4, 6, 8};
// Stream-K (split_k.cuh, the pinned _sk configurations) is not picked: where it beat split-K in two
// (six of 48 fit shapes, 0.81-0.95 of its time on five), split-K in its line order ran as fast
// (0.989-0.999 of stream-K's time on all six; docs/kernels/hopper-gemm.md, "Split-K's order"): the
// gain was the order of the CTAs, which split-K now has.

// Whether the 64 x 128 tile pads m x n less than 128 x 64, which covers it in as many tiles of the
// same size.
bool sixty_four_rows_pad_less(long long m, long long n) {
  return (m + 63) / 64 * 64 * ((n + 127) / 128 * 128) < (m + 127) / 128 * 128 * ((n + 63) / 64 * 64);
}

}  // namespace

// Whole waves of tiles over the SMs (a persistent CTA takes its tiles one after another) times
// the time of one tile.
TileChoice choose_tile(bool fp8, int m, int n, int k, int sms, bool allow_split, int cluster4_ctas) {
  TileChoice best;
  const bool split_rows = !fp8 && (k % 16 != 0 || n % 16 != 0);
  double best_cost = 0;
  long long best_waves = 0;
  if (sms < 1) sms = 1;
  auto consider = [&](int tm, int tn) {
    if (!tile_built(fp8, tm, tn)) return;
    // Against 128x64: only where it pads less, and not with rows off 32 bytes (alone or paired it
    // won and lost there by turns).
    if (tm == 64 && (split_rows || !sixty_four_rows_pad_less(m, n))) return;
    const long long tiles = tile_count(m, n, tm, tn);
    const long long waves = (tiles + sms - 1) / sms;
    const double efficiency = split_rows ? split_row_efficiency(tm, tn) : tile_efficiency(fp8, tm, tn);
    const double cost = static_cast<double>(waves) * tm * tn / efficiency;
    if (best_cost == 0 || cost < best_cost) {
      best.tile_m = tm;
      best.tile_n = tn;
      best_cost = cost;
      best_waves = waves;
    }
  };
  for (const TileShape t : kTileShapes) consider(t.m, t.n);
  const bool pair8 = fp8 && (((best.tile_n == 128 || best.tile_n == 192) && best_waves >= kClusterMinWaves) ||
                             best.tile_n == 176 || best.tile_n == 208);
  const bool pair16 = !fp8 && best.tile_m == kTileM && best.tile_n == 256 && best_waves >= kClusterWaves16[0] &&
                      best_waves < kClusterWaves16[1];
  const bool pair_split = split_rows && best.tile_n != 64;
  const double k_blocks = k / 64 + (k % 64 != 0);
  const long long row_tiles = tile_count(m, 1, best.tile_m, 1);
  const bool pair_rows = !fp8 && best.tile_m == kTileM && best.tile_n >= 128 && row_tiles >= 2 &&
                         row_tiles % 2 == 0 && row_tiles <= kPairRowTilesMax && best_waves < kClusterWaves16[1] &&
                         k_blocks >= kPairMinKBlocks;
  if (pair8 || pair16 || pair_split || pair_rows) best.cluster = 2;
  if (pair_rows && row_tiles == kQuadRowTiles && (best.tile_n == 128 || best.tile_n == 192) &&
      tile_count(m, n, best.tile_m, best.tile_n) <= cluster4_ctas)
    best.cluster = 4;
  if (fp8 || !allow_split) return best;
  // Split-K against the choice above, both in K-block times of a 128 x 128 tile at full rate.
  double best_time = static_cast<double>(best_waves) * (k_blocks + kFixedBlocks) * best.tile_m * best.tile_n /
                     (split_rows ? split_row_efficiency(best.tile_m, best.tile_n)
                                 : tile_efficiency(false, best.tile_m, best.tile_n));
  // The 64 x 128 tile splits too, under the tile rule above (where it pads less: mostly m % 128 in
  // 1..64; m <= 64 over a deep K is a decoder's GEMM, where 128-row tiles stream and reduce rows
  // that do not exist).
  const TileShape split_tiles[] = {{kTileM, 128}, {kTileM, 64}, {64, 128}};
  for (const TileShape tile : split_tiles) {
    if (tile.m == 64 && (split_rows || !sixty_four_rows_pad_less(m, n))) continue;
    const long long tiles = tile_count(m, n, tile.m, tile.n);
    // Alone, a 128-wide tile off 32 bytes runs at about the 64-wide one's rate (see above).
    const double efficiency = split_rows ? 0.55 : tile_efficiency(false, tile.m, tile.n);
    for (const int s : kSplitCounts) {
      if (s > k_blocks || tiles * s > sms) break;
      const double time = (std::ceil(k_blocks / s) + kFixedBlocks + kReduceBlocks + kReducePerSplit * (s - 1) +
                           (tile.m == 64 ? kFullChipBlocks64 : kFullChipBlocks) * static_cast<double>(tiles * s) / sms) *
                          tile.m * tile.n / efficiency;
      if (time < best_time) {
        best_time = time;
        best = TileChoice{tile.m, tile.n, 1, s};
      }
    }
  }
  return best;
}

}  // namespace assay::kernels::hopper
