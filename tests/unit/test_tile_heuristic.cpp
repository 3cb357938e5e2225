// The Hopper GEMM's tile heuristic and persistent grid, pinned to the picks measured on the H100
// (132 SMs): the results of record name the kernel each square size ran (docs/kernels/hopper-gemm.md, "The heuristic"; records in bench/README.md and bench/ARCHIVE.md, v5d;
// f16/bf16 4096^3 in clusters since v6, 3072^3 and 6144^3 on 192x192 tiles since v7; fp8 4096^3 on
// 208-wide pairs since v9, 6144^3 and 8192^3 on 192-wide pairs since v12).
#include <gtest/gtest.h>

#include "kernels/gemm/tile_heuristic.hpp"

namespace {

using assay::kernels::hopper::choose_tile;
using assay::kernels::hopper::kTileWidths;
using assay::kernels::hopper::persistent_clusters;
using assay::kernels::hopper::stream_k_ctas;
using assay::kernels::hopper::tile_built;

constexpr int kH100Sms = 132;

struct Pick {
  int size, tile_n, cluster, tile_m = 128;
};

TEST(TileHeuristic, SquareSizesOfRecordPickTheMeasuredTiles16Bit) {
  for (const Pick p : {Pick{1024, 64, 1}, Pick{2048, 256, 1}, Pick{3072, 192, 1, 192}, Pick{4096, 256, 2},
                       Pick{6144, 192, 1, 192}, Pick{8192, 192, 1}}) {
    const auto t = choose_tile(false, p.size, p.size, p.size, kH100Sms);
    EXPECT_EQ(t.tile_m, p.tile_m) << p.size;
    EXPECT_EQ(t.tile_n, p.tile_n) << p.size;
    EXPECT_EQ(t.cluster, p.cluster) << p.size;
  }
}

TEST(TileHeuristic, F16PairsOnlyFromFourToSevenWaves) {
  // 8192 x 4096: 1024 tiles of 128x256, eight waves: alone (the pair lost at 16 waves).
  EXPECT_EQ(choose_tile(false, 8192, 4096, 4096, kH100Sms).tile_n, 256);
  EXPECT_EQ(choose_tile(false, 8192, 4096, 4096, kH100Sms).cluster, 1);
  // 4096 x 4096 on 114 SMs (an H100 PCIe): 512 tiles, five waves: paired.
  EXPECT_EQ(choose_tile(false, 4096, 4096, 4096, 114).cluster, 2);
}

// Rows off 32 bytes (k or n not a multiple of 16): pairs, and the narrow tiles count as slower. The picks
// at the shapes the sweep that set the rule measured (docs/kernels/hopper-gemm.md, "Pitches off 32 bytes"),
// with the time of the pick relative to the best of 10 configurations there.
TEST(TileHeuristic, RowsOffThirtyTwoBytesRunInPairs) {
  struct Shape {
    int m, n, k, tile_m, tile_n, cluster;
  };
  for (const Shape s : {Shape{3000, 7000, 4000, 192, 192, 2},    // 1.000 (alone 128 x 192: 1.66)
                        Shape{3296, 3112, 7224, 128, 256, 2},    // 1.035 (before: 128 x 128 alone, 1.77)
                        Shape{1100, 3208, 1592, 128, 256, 2},    // 1.000 (before: 128 x 256 alone, 1.28)
                        Shape{8145, 712, 832, 128, 192, 2},      // 1.000 (before: 128 x 192 alone, 1.28)
                        Shape{261, 1352, 2328, 128, 64, 1}}) {   // 1.000: the 64-wide tile stays alone
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_EQ(t.tile_m, s.tile_m) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.tile_n, s.tile_n) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.cluster, s.cluster) << s.m << "x" << s.n << "x" << s.k;
  }
  // The same m and n with k and n on 32 bytes keep the rule of record: 128 x 192 alone.
  EXPECT_EQ(choose_tile(false, 3000, 7040, 4000, kH100Sms).cluster, 1);
  // fp8 is unchanged by it (not measured there): 1-byte rows, its own pairing rule.
  EXPECT_EQ(choose_tile(true, 3000, 7000, 4008, kH100Sms).tile_n, choose_tile(true, 3000, 7000, 4096, kH100Sms).tile_n);
}

// Over two or four row tiles of 128 (m 129-256, 385-512) the 16-bit 128-row tiles run in pairs that
// multicast B; over one or three (a partner with no rows) alone; the 64-row tile and fp8 keep their
// rules (docs/kernels/hopper-gemm.md, "Pairs over few row tiles"; measured time of the pair against the
// same tile alone, H200).
TEST(TileHeuristic, FewRowTilesRunInPairs) {
  struct Shape {
    int m, n, k, tile_n, cluster;
  };
  for (const Shape s : {Shape{146, 6080, 7488, 128, 2},    // 0.798
                        Shape{222, 7280, 7184, 128, 2},    // 0.818
                        Shape{438, 3552, 10944, 128, 2},   // 0.827
                        Shape{414, 7584, 7072, 256, 2},    // 0.944 (across two runs)
                        Shape{339, 3680, 7904, 128, 1},    // three row tiles: the pair 1.45x
                        Shape{330, 3440, 6912, 128, 1},    // three: 1.45x
                        Shape{1000, 4992, 4000, 192, 1}}) {  // eight: not measured, alone
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_EQ(t.tile_m, 128) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.tile_n, s.tile_n) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.cluster, s.cluster) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.splits, 1) << s.m << "x" << s.n << "x" << s.k;
  }
  EXPECT_EQ(choose_tile(true, 146, 6080, 7488, kH100Sms).cluster, 1);  // fp8: its own rule
  // Below 32 K blocks the pair's fixed cost is not earned back: (240, 6144, 256) paired ran 1.10x,
  // (240, 6144, 1024) 1.03x the time alone; 2048 (32 blocks) pairs.
  EXPECT_EQ(choose_tile(false, 240, 6144, 256, kH100Sms).cluster, 1);
  EXPECT_EQ(choose_tile(false, 240, 6144, 1024, kH100Sms).cluster, 1);
  EXPECT_EQ(choose_tile(false, 240, 6144, 1984, kH100Sms).cluster, 1);
  EXPECT_EQ(choose_tile(false, 240, 6144, 2048, kH100Sms).cluster, 2);
}

// Four row tiles of 128 (m 385-512) in clusters of four where the pair rule pairs a 128- or 192-wide
// tile and its tiles fit one wave of them (docs/kernels/hopper-gemm.md, "Clusters of four"; measured
// time of the four against the pair, H200, which holds 120 CTAs in clusters of four).
TEST(TileHeuristic, FourRowTilesRunInClustersOfFour) {
  constexpr int kQuads = 120;
  struct Shape {
    int m, n, k, tile_n, cluster;
  };
  for (const Shape s : {Shape{399, 2928, 14240, 128, 4},   // 92 tiles: 0.81
                        Shape{438, 3552, 10944, 128, 4},   // 112: 0.92
                        Shape{492, 4464, 12096, 192, 4},   // 96: 0.94
                        Shape{481, 4112, 6272, 128, 2},    // 132 tiles do not fit: the four 1.67x
                        Shape{441, 6768, 5744, 256, 2},    // 256 wide stays paired
                        Shape{146, 6080, 7488, 128, 2},    // two row tiles: pairs
                        Shape{330, 3440, 6912, 128, 1}}) {  // three: alone
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms, true, kQuads);
    EXPECT_EQ(t.tile_m, 128) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.tile_n, s.tile_n) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.cluster, s.cluster) << s.m << "x" << s.n << "x" << s.k;
  }
  // Without the device's count (or where none fit), pairs; fp8 and shallow K keep their rules.
  EXPECT_EQ(choose_tile(false, 399, 2928, 14240, kH100Sms).cluster, 2);
  EXPECT_EQ(choose_tile(true, 399, 2928, 14240, kH100Sms, true, kQuads).cluster, 1);
  EXPECT_EQ(choose_tile(false, 450, 2928, 1984, kH100Sms, true, kQuads).cluster, 1);
}

TEST(TileHeuristic, SquareSizesOfRecordPickTheMeasuredTilesFp8) {
  for (const Pick p : {Pick{1024, 64, 1}, Pick{2048, 128, 1}, Pick{3072, 192, 1}, Pick{4096, 208, 2},
                       Pick{6144, 192, 2}, Pick{8192, 192, 2}}) {
    const auto t = choose_tile(true, p.size, p.size, p.size, kH100Sms);
    EXPECT_EQ(t.tile_m, 128) << p.size;
    EXPECT_EQ(t.tile_n, p.tile_n) << p.size;
    EXPECT_EQ(t.cluster, p.cluster) << p.size;
  }
}

TEST(TileHeuristic, EveryPickExistsForItsDtype) {
  for (const bool fp8 : {false, true})
    for (const int m : {1, 100, 128, 129, 400, 512, 1000, 4999, 8192})
      for (const int n : {8, 64, 176, 200, 1000, 4992, 8192})
        for (const int k : {16, 1984, 2048, 4000, 4008})
          for (const int sms : {1, 66, 114, 132})
            for (const int quads : {0, sms / 4 * 4 - 12}) {
            const auto t = choose_tile(fp8, m, n, k, sms, true, quads);
            EXPECT_TRUE(tile_built(fp8, t.tile_m, t.tile_n)) << fp8 << " " << m << "x" << n << " on " << sms;
            // Clusters of 2 exist for every width; the heuristic pairs fp8's 128/176/192/208, f16/bf16's
            // 256, with rows off 32 bytes every 16-bit tile but the 64-wide one, and over two or four
            // row tiles the 16-bit 128-row tiles from 128 wide (32 K blocks, fewer than eight waves).
            const bool split = k % 16 != 0 || n % 16 != 0;
            const int row_tiles = (m + 127) / 128;
            const int waves = (row_tiles * ((n + t.tile_n - 1) / t.tile_n) + sms - 1) / sms;
            const bool few_rows = t.tile_m == 128 && t.tile_n >= 128 && (row_tiles == 2 || row_tiles == 4) &&
                                  k >= 32 * 64 - 63 && waves < 8;
            // Clusters of four: where the pair rule pairs a 128- or 192-wide tile over four row tiles
            // whose tiles fit one wave of clusters of four.
            if (t.cluster == 4) {
              EXPECT_FALSE(fp8);
              EXPECT_TRUE(few_rows && row_tiles == 4 && (t.tile_n == 128 || t.tile_n == 192))
                  << m << "x" << n << "x" << k << " " << t.tile_n;
              EXPECT_LE(row_tiles * ((n + t.tile_n - 1) / t.tile_n), quads) << m << "x" << n << "x" << k;
              continue;
            }
            EXPECT_TRUE(t.cluster == 1 ||
                        (t.cluster == 2 && (fp8 ? t.tile_m == 128 && (t.tile_n == 128 || t.tile_n == 176 ||
                                                                      t.tile_n == 192 || t.tile_n == 208)
                                                : t.tile_n == 256 || (split && t.tile_n != 64) || few_rows)))
                << fp8 << " " << m << "x" << n << "x" << k;
            if (!fp8 && few_rows && t.splits == 1) EXPECT_EQ(t.cluster, 2) << m << "x" << n << "x" << k;
            if (!fp8 && split && t.splits == 1) EXPECT_EQ(t.cluster == 2, t.tile_n != 64) << m << "x" << n << "x" << k;
            // Split-K: 16-bit single CTAs of the three built tiles, one wave of units, a K block per
            // split, and only the split counts that exist as pinned configurations.
            if (t.splits > 1) {
              EXPECT_FALSE(fp8);
              EXPECT_EQ(t.cluster, 1);
              EXPECT_TRUE((t.tile_m == 128 && (t.tile_n == 64 || t.tile_n == 128)) ||
                          (t.tile_m == 64 && t.tile_n == 128))
                  << t.tile_m << "x" << t.tile_n;
              EXPECT_TRUE(t.splits == 2 || t.splits == 3 || t.splits == 4 || t.splits == 6 || t.splits == 8)
                  << t.splits;
              EXPECT_LE(t.splits, (k + 63) / 64);
              EXPECT_LE(static_cast<long long>((m + t.tile_m - 1) / t.tile_m) * ((n + t.tile_n - 1) / t.tile_n) *
                            t.splits,
                        sms);
            }
          }
}

// Stream-K is a pinned mode only: where it beat split-K in two (these five shapes), split-K in its
// line order ran as fast (docs/kernels/hopper-gemm.md, "Split-K's order"), so the pick is split-K in two.
TEST(TileHeuristic, SplitInTwoWhereStreamKOnceRan) {
  struct Shape {
    int m, n, k;
  };
  for (const Shape s : {Shape{133, 2976, 8784}, Shape{243, 4128, 12096}, Shape{186, 3648, 9968},
                        Shape{364, 2784, 13696}, Shape{616, 1328, 7984}}) {
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_TRUE(t.tile_m == 128 && t.tile_n == 128 && t.cluster == 1 && t.splits == 2)
        << s.m << "x" << s.n << "x" << s.k << ": " << t.tile_m << "x" << t.tile_n << " k" << t.splits;
  }
  // The pinned grid: groups of one CTA per tile row, no more groups than (column, K block) iterations.
  EXPECT_EQ(stream_k_ctas(300, 128, 64, 128, 128, 132), 3);      // one column, one K block: one group
  EXPECT_EQ(stream_k_ctas(300, 8192, 8192, 128, 128, 132), 132);  // 44 groups of 3
  EXPECT_EQ(stream_k_ctas(1000, 8192, 8192, 128, 128, 132), 128);  // 16 groups of 8
  EXPECT_EQ(stream_k_ctas(17000, 256, 64, 128, 128, 132), 0);      // 133 tile rows: no group fits
}

// Split-K where few tiles meet a deep K (docs/kernels/hopper-gemm.md, "Split-K"): the picks at
// shapes of the sweep that fitted it, with the measured time of the pick against the best of
// 2, 3, 4, 6 and 8 splits of both tiles and the unsplit pick (H200).
TEST(TileHeuristic, SplitsFewTilesOverDeepK) {
  struct Shape {
    int m, n, k, tile_n, splits;
  };
  for (const Shape s : {Shape{113, 256, 7504, 64, 6},     // k6 measured: 2.0x the unsplit 128 x 64
                        Shape{163, 384, 7672, 64, 6},     // k4-k6: 2.2-2.3x
                        Shape{95, 2232, 7552, 64, 3},     // k3: 1.46x
                        Shape{1368, 384, 1728, 64, 1},    // 66 tiles, 27 K blocks: k2 ran 0.89x
                        Shape{128, 1872, 1088, 64, 1}}) {  // 17 K blocks: k2 ran 0.88x
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_EQ(t.tile_m, 128) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.tile_n, s.tile_n) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.splits, s.splits) << s.m << "x" << s.n << "x" << s.k;
  }
  EXPECT_EQ(choose_tile(true, 113, 256, 7504, kH100Sms).splits, 1);  // fp8 has no split instances
  // Without split-K (no workspace to be had), the unsplit choice.
  const auto unsplit = choose_tile(false, 113, 256, 7504, kH100Sms, false);
  EXPECT_EQ(unsplit.splits, 1);
  EXPECT_EQ(unsplit.tile_n, 64);
  // k near INT_MAX: the K blocks are counted without overflow (a wrapped, negative count had split
  // nothing); one tile over the deepest K takes the most splits.
  EXPECT_EQ(choose_tile(false, 64, 64, 2147483647, kH100Sms).splits, 8);
  // m or n near INT_MAX: tiles and padding are counted without overflow (many waves: no split).
  EXPECT_EQ(assay::kernels::hopper::tile_count(2147483647, 2147483647, 64, 128), 33554432LL * 16777216LL);
  EXPECT_EQ(choose_tile(false, 2147483647, 64, 4096, kH100Sms).splits, 1);
  EXPECT_EQ(choose_tile(false, 64, 2147483647 - 7, 4096, kH100Sms).splits, 1);
  for (const bool fp8 : {false, true}) {
    const auto t = choose_tile(fp8, 2147483647, 2147483647 - 7, 8, kH100Sms);
    EXPECT_TRUE(tile_built(fp8, t.tile_m, t.tile_n)) << t.tile_m << "x" << t.tile_n;
  }
  for (const int size : {1024, 2048, 4096}) EXPECT_EQ(choose_tile(false, size, size, size, kH100Sms).splits, 1);
}

// Split-K of the 64 x 128 tile (docs/kernels/hopper-gemm.md, "Split-K of the 64-row tile"): where
// that tile pads less, its splits compete under the same cost as the 128-row ones. The picks on
// shapes of suites/gemm-hopper-smallm.toml (held out from the sweep that checked the rule, with the
// pick's time against the previous rule's: H200, `assay ab`), of the mlp and of the fewtiles suite.
TEST(TileHeuristic, SixtyFourRowTileSplitsDecoderShapes) {
  struct Shape {
    int m, n, k, tile_m, splits;
  };
  for (const Shape s : {Shape{5, 7232, 9472, 64, 2},     // 0.735 (was 128 x 128, 2 splits)
                        Shape{22, 7552, 10816, 64, 2},   // 0.761
                        Shape{20, 2368, 5184, 64, 3},    // 0.771 (0.781 at 4 splits)
                        Shape{57, 704, 13824, 64, 8},    // 0.979
                        Shape{133, 2112, 12224, 64, 2},  // 0.846 (was 128 x 128, 3 splits)
                        Shape{64, 2048, 8192, 64, 4},    // the mlp's second layer: the best of the sweep
                        Shape{64, 8192, 2048, 64, 1},    // its first: 64 tiles over 32 K blocks
                        Shape{64, 640, 1088, 64, 1},     // 17 K blocks: 3 splits ran 1.18x the time
                        Shape{100, 2048, 8192, 128, 4}}) {  // pads as much: 128 x 64, 4 splits
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_EQ(t.tile_m, s.tile_m) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.splits, s.splits) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.cluster, 1) << s.m << "x" << s.n << "x" << s.k;
  }
  // Rows off 32 bytes: the 64-row tile is not considered, split or not.
  EXPECT_EQ(choose_tile(false, 20, 2376, 5184, kH100Sms).tile_m, 128);
}

// The 64 x 128 tile (one consumer warp group) replaces 128 x 64 where it pads the output less, rows
// on 32 bytes (docs/kernels/hopper-gemm.md, "The 64-row tile"; measured gains over 128 x 64, H200).
TEST(TileHeuristic, SixtyFourRowTileWhereItPadsLess) {
  struct Shape {
    int m, n, k, tile_m, tile_n;
  };
  for (const Shape s : {Shape{54, 4480, 1152, 64, 128},    // 1.20x
                        Shape{16, 4352, 768, 64, 128},     // 1.21x (held out)
                        Shape{703, 1408, 1920, 64, 128},   // 1.27x (held out)
                        Shape{115, 6720, 544, 128, 64},    // pads more columns: 0.98x
                        Shape{98, 1152, 1536, 128, 64},    // pads as much: 0.97x
                        Shape{1024, 1024, 1024, 128, 64},  // the grid's pick stays
                        Shape{54, 4488, 1152, 128, 64}}) {  // rows off 32 bytes: not considered
    const auto t = choose_tile(false, s.m, s.n, s.k, kH100Sms);
    EXPECT_EQ(t.tile_m, s.tile_m) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.tile_n, s.tile_n) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.cluster, 1) << s.m << "x" << s.n << "x" << s.k;
    EXPECT_EQ(t.splits, 1) << s.m << "x" << s.n << "x" << s.k;
  }
  EXPECT_EQ(choose_tile(true, 54, 4480, 1152, kH100Sms).tile_m, 128);  // fp8 has no 64-row tile
}

TEST(TileHeuristic, WidthsPerDtype) {
  EXPECT_FALSE(tile_built(true, 256));  // fp8: the partial set would not fit
  EXPECT_FALSE(tile_built(false, 176));  // f16/bf16: B comes in 64-column boxes
  EXPECT_FALSE(tile_built(false, 208));
  EXPECT_TRUE(tile_built(false, 192, 192));
  EXPECT_FALSE(tile_built(true, 192, 192));  // fp8's partial sets need the 128-row tiles' registers
  EXPECT_FALSE(tile_built(false, 192, 256));
  EXPECT_TRUE(tile_built(false, 64, 128));
  EXPECT_FALSE(tile_built(false, 64, 256));
  EXPECT_FALSE(tile_built(true, 64, 128));
  int fp8_widths = 0, widths16 = 0;
  for (const int w : kTileWidths) {
    fp8_widths += tile_built(true, w);
    widths16 += tile_built(false, w);
  }
  EXPECT_EQ(fp8_widths, 5);
  EXPECT_EQ(widths16, 4);
}

TEST(TileHeuristic, PersistentGridKeepsTheRoundsWithTheFewestClusters) {
  EXPECT_EQ(persistent_clusters(256, 66), 64);    // 4096^3 pairs: four rounds either way
  EXPECT_EQ(persistent_clusters(256, 132), 128);  // 3072^3 192x192: two rounds
  EXPECT_EQ(persistent_clusters(320, 66), 64);    // fp8 4096^3 208 pairs: five rounds
  EXPECT_EQ(persistent_clusters(1376, 66), 66);   // fp8 8192^3 192 pairs: 21 rounds need all 66
  EXPECT_EQ(persistent_clusters(2752, 132), 132);
  EXPECT_EQ(persistent_clusters(64, 66), 64);     // one round: a cluster per unit
  EXPECT_EQ(persistent_clusters(1, 132), 1);
  for (long long units = 1; units <= 3000; ++units)
    for (const int limit : {1, 7, 60, 66, 132}) {
      const int c = persistent_clusters(units, limit);
      const long long rounds = (units + limit - 1) / limit;
      ASSERT_GE(c, 1);
      ASSERT_LE(c, limit);
      EXPECT_EQ((units + c - 1) / c, rounds) << units << " on " << limit;  // no round added
      EXPECT_TRUE(c == 1 || (units + c - 2) / (c - 1) > rounds) << units << " on " << limit;  // fewest
    }
}

}  // namespace
