// The Hopper GEMM's split-K and stream-K partitions (kernels/gemm/k_segments.hpp), checked on the host
// over many grids: every (tile, K block) computed exactly once, each cut tile's segments contiguous
// in K order with one workspace slot each, and the reducer's view of the other segments' slots equal
// to the slots those segments write.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/gemm/k_segments.hpp"

namespace {

using assay::kernels::hopper::Segment;
using assay::kernels::hopper::Segments;

struct Seen {
  int first, end, count;
  long long slot;
};

// Walks every CTA of a launch and checks the partition; `slots_limit` bounds the slot indices.
void check_partition(int tiles_m, int tiles_n, int k_blocks, int splits, int ctas, long long slots_limit,
                     bool by_row = false) {
  const std::string where = "tiles " + std::to_string(tiles_m) + "x" + std::to_string(tiles_n) + " kb " +
                            std::to_string(k_blocks) + " splits " + std::to_string(splits) + " ctas " +
                            std::to_string(ctas) + (by_row ? " by row" : "");
  std::map<int, std::pair<int, int>> coords;  // tile counter -> its (row, column) of the output
  std::vector<int> covered(static_cast<std::size_t>(tiles_m) * tiles_n * k_blocks, 0);
  std::map<std::pair<int, int>, Seen> segments;  // (tile counter, index) -> what the segment wrote
  std::set<long long> slots;
  std::vector<std::tuple<Segments, Segment, int>> cut;  // to check the reducer's view afterwards
  for (int cta = 0; cta < ctas; ++cta) {
    Segments walk(cta, ctas, tiles_m, tiles_n, splits, k_blocks, by_row);
    const Segments at_start = walk;
    Segment g;
    int taken = 0;
    while (walk.next(g)) {
      ++taken;
      ASSERT_TRUE(g.first >= 0 && g.first < g.end && g.end <= k_blocks) << where << " cta " << cta;
      ASSERT_TRUE(g.index >= 0 && g.index < g.count) << where << " cta " << cta;
      const int tile = at_start.counter(g);
      ASSERT_TRUE(tile >= 0 && tile < tiles_m * tiles_n) << where;
      // One output tile per counter, in range.
      int tm = -1, tn = -1;
      at_start.tile(g, tm, tn);
      ASSERT_TRUE(tm >= 0 && tm < tiles_m && tn >= 0 && tn < tiles_n) << where << " cta " << cta;
      EXPECT_EQ(coords.emplace(tile, std::pair{tm, tn}).first->second, (std::pair{tm, tn})) << where << " tile " << tile;
      for (int kb = g.first; kb < g.end; ++kb) ++covered[static_cast<std::size_t>(tile) * k_blocks + kb];
      // A whole tile is one segment; a cut tile writes one slot.
      EXPECT_EQ(g.count == 1, g.first == 0 && g.end == k_blocks) << where << " cta " << cta;
      long long slot = -1;
      if (g.count > 1) {
        slot = at_start.slot(g, g.index);
        EXPECT_TRUE(slot >= 0 && slot < slots_limit) << where << " slot " << slot;
        EXPECT_TRUE(slots.insert(slot).second) << where << " slot " << slot << " written twice";
        cut.emplace_back(at_start, g, tile);
      }
      EXPECT_TRUE(segments.emplace(std::pair{tile, g.index}, Seen{g.first, g.end, g.count, slot}).second)
          << where << " tile " << tile << " segment " << g.index << " twice";
    }
    // Stream-K: every CTA has work (the grid is at most one group per iteration).
    if (splits == 0) EXPECT_GT(taken, 0) << where << " cta " << cta;
  }
  for (std::size_t i = 0; i < covered.size(); ++i) ASSERT_EQ(covered[i], 1) << where << " iteration " << i;
  std::set<std::pair<int, int>> distinct;
  for (const auto& [tile, at] : coords) distinct.insert(at);
  EXPECT_EQ(distinct.size(), static_cast<std::size_t>(tiles_m) * tiles_n) << where;
  // Each tile's segments: indices 0 .. count-1, contiguous in K from 0 to kb, one count.
  for (int tile = 0; tile < tiles_m * tiles_n; ++tile) {
    const auto first = segments.find({tile, 0});
    ASSERT_NE(first, segments.end()) << where << " tile " << tile;
    int at = 0;
    for (int j = 0; j < first->second.count; ++j) {
      const auto s = segments.find({tile, j});
      ASSERT_NE(s, segments.end()) << where << " tile " << tile << " segment " << j;
      EXPECT_EQ(s->second.first, at) << where << " tile " << tile << " segment " << j;
      EXPECT_EQ(s->second.count, first->second.count) << where << " tile " << tile;
      at = s->second.end;
    }
    EXPECT_EQ(at, k_blocks) << where << " tile " << tile;
  }
  // The reducer (whichever segment arrives last) reads segment j's slot where segment j wrote it.
  for (const auto& [walk, g, tile] : cut)
    for (int j = 0; j < g.count; ++j) EXPECT_EQ(walk.slot(g, j), segments.at({tile, j}).slot) << where << " tile " << tile;
}

TEST(KSegments, SplitKCoversEveryBlockOnceInOrder) {
  for (const int splits : {2, 3, 4, 6, 8, 16})
    for (const auto& [tm, tn, kb] : {std::tuple{1, 1, 16}, std::tuple{2, 3, 17}, std::tuple{5, 7, 100}, std::tuple{16, 16, 16}})
      for (const int ctas : {1, 7, tm * tn * splits, 132})
        for (const bool by_row : {false, true})
          check_partition(tm, tn, kb, splits, ctas, static_cast<long long>(tm) * tn * splits, by_row);
}

// The direction of split-K's lines: along the operand the tiles read more, and lines of one tile where
// the tiles are one row or one column (the old order; level with one line of all: docs/kernels/hopper-gemm.md,
// "Split-K's order").
TEST(KSegments, SplitLinesRunAlongTheOperandReadMore) {
  using assay::kernels::hopper::split_lines_by_row;
  EXPECT_FALSE(split_lines_by_row(243, 4128, 128, 128));  // 33 x 243 of A against 2 x 4128 of B
  EXPECT_TRUE(split_lines_by_row(858, 432, 128, 128));
  EXPECT_TRUE(split_lines_by_row(331, 960, 128, 64));      // 15 x 331 against 3 x 960
  EXPECT_FALSE(split_lines_by_row(562, 368, 64, 128));     // 3 x 562 against 9 x 368
  EXPECT_FALSE(split_lines_by_row(76, 2984, 128, 64));     // one tile row: lines of one tile
  EXPECT_TRUE(split_lines_by_row(2984, 64, 64, 128));      // one tile column: likewise
}

// Split-K's lines: neighbouring CTAs take split s of a column's row tiles (or, by row, of a row's
// column tiles), then split s + 1 of the same line (docs/kernels/hopper-gemm.md, "Split-K's order").
TEST(KSegments, SplitKNeighboursShareALineAndASplit) {
  const int tiles_m = 3, tiles_n = 5, splits = 2, kb = 10, ctas = tiles_m * tiles_n * splits;
  auto at = [&](int cta, bool by_row) {
    Segments walk(cta, ctas, tiles_m, tiles_n, splits, kb, by_row);
    Segment g;
    EXPECT_TRUE(walk.next(g));
    int tm = -1, tn = -1;
    walk.tile(g, tm, tn);
    return std::tuple{tm, tn, g.index};
  };
  EXPECT_EQ(at(0, false), (std::tuple{0, 0, 0}));
  EXPECT_EQ(at(2, false), (std::tuple{2, 0, 0}));
  EXPECT_EQ(at(3, false), (std::tuple{0, 0, 1}));
  EXPECT_EQ(at(6, false), (std::tuple{0, 1, 0}));
  EXPECT_EQ(at(29, false), (std::tuple{2, 4, 1}));
  EXPECT_EQ(at(0, true), (std::tuple{0, 0, 0}));
  EXPECT_EQ(at(4, true), (std::tuple{0, 4, 0}));
  EXPECT_EQ(at(5, true), (std::tuple{0, 0, 1}));
  EXPECT_EQ(at(10, true), (std::tuple{1, 0, 0}));
  EXPECT_EQ(at(29, true), (std::tuple{2, 4, 1}));
}

TEST(KSegments, StreamKCoversEveryBlockOnceInOrder) {
  std::mt19937 rng(20261128);
  for (int trial = 0; trial < 400; ++trial) {
    const int rows = std::uniform_int_distribution<int>(1, 8)(rng);
    const int columns = std::uniform_int_distribution<int>(1, 60)(rng);
    const int kb = std::uniform_int_distribution<int>(1, 300)(rng);
    const long long iterations = static_cast<long long>(columns) * kb;
    const int most = static_cast<int>(std::min<long long>(132 / rows, iterations));
    // The full chip, whole splits per column where they fit (the heuristic takes two), and a random count.
    std::vector<int> groups = {most, std::uniform_int_distribution<int>(1, most)(rng)};
    if (most / columns >= 1) groups.push_back(most / columns * columns);
    for (const int g : groups) check_partition(rows, columns, kb, 0, g * rows, 2LL * g * rows);
  }
  // Edge grids: one group, one iteration; a group per iteration; a column cut into 17.
  check_partition(1, 1, 1, 0, 1, 2);
  check_partition(3, 2, 5, 0, 30, 60);
  check_partition(2, 3, 17, 0, 102, 204);
}

// Whole splits per column: every column cut into the same equal K ranges, so that the groups sit at
// a few K offsets (the heuristic's grid; docs/kernels/hopper-gemm.md, "Stream-K").
TEST(KSegments, WholeSplitsPerColumnCutEveryColumnAlike) {
  const int rows = 3, columns = 17, kb = 105, per_column = 2;
  const int ctas = per_column * columns * rows;
  std::set<std::pair<int, int>> ranges;
  for (int cta = 0; cta < ctas; ++cta) {
    Segments walk(cta, ctas, rows, columns, 0, kb);
    Segment g;
    while (walk.next(g)) {
      EXPECT_EQ(g.count, per_column);
      ranges.insert({g.first, g.end});
    }
  }
  EXPECT_EQ(ranges, (std::set<std::pair<int, int>>{{0, 52}, {52, 105}}));
}

// The kernel's instances walk SegmentsOf<Cut::split> or <Cut::stream> (one cut compiled in each); they
// must cut exactly as the general walk that the tests above check.
template <assay::kernels::hopper::Cut K>
void expect_same_walk(int tiles_m, int tiles_n, int k_blocks, int splits, int ctas, bool by_row) {
  for (int cta = 0; cta < ctas; ++cta) {
    Segments general(cta, ctas, tiles_m, tiles_n, splits, k_blocks, by_row);
    assay::kernels::hopper::SegmentsOf<K> typed(cta, ctas, tiles_m, tiles_n, splits, k_blocks, by_row);
    Segment a, b;
    for (;;) {
      const bool more = general.next(a);
      ASSERT_EQ(typed.next(b), more) << "cta " << cta;
      if (!more) break;
      EXPECT_EQ(std::tie(a.unit, a.first, a.end, a.index, a.count), std::tie(b.unit, b.first, b.end, b.index, b.count));
      int tm = -1, tn = -1, tm2 = -2, tn2 = -2;
      general.tile(a, tm, tn);
      typed.tile(b, tm2, tn2);
      EXPECT_EQ(std::pair(tm, tn), std::pair(tm2, tn2));
      EXPECT_EQ(general.counter(a), typed.counter(b));
      for (int j = 0; j < a.count; ++j) EXPECT_EQ(general.slot(a, j), typed.slot(b, j));
    }
  }
}

TEST(KSegments, EachInstancesWalkCutsAsTheGeneralOne) {
  using assay::kernels::hopper::Cut;
  for (const bool by_row : {false, true}) {
    expect_same_walk<Cut::split>(5, 7, 100, 3, 132, by_row);
    expect_same_walk<Cut::split>(1, 9, 40, 4, 36, by_row);
  }
  expect_same_walk<Cut::stream>(3, 17, 105, 0, 102, false);
  expect_same_walk<Cut::stream>(2, 5, 33, 0, 20, false);
}

}  // namespace
