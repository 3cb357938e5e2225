#pragma once
// How split-K and stream-K cut the Hopper GEMM's K loops into segments (split_k.cuh runs them),
// free of CUDA so that the CPU tests check the partition: every (tile, K block) covered exactly once,
// each cut tile's segments in K order with one workspace slot each.
//   Split-K (splits >= 2): a unit of work is (output tile, split s), split s of S taking kb / S K
//   blocks (one more for the first kb % S splits), in K order; the CTAs take units u = cta,
//   cta + ctas, ... in lines: column by column (split s of a column's row tiles on neighbouring
//   CTAs, sharing B's K range s) or, with `by_row`, row by row (sharing A's). Neighbours in launch
//   order share L2 lookups; putting a tile's splits there instead (they share nothing) ran up to
//   1.28x the time (docs/kernels/hopper-gemm.md, "Split-K's order").
//   Stream-K (splits == 0): the CTAs run in groups of as many as there are tile rows; the groups
//   divide the I = tile columns x kb (column, K block) iterations evenly as one sequence, group c
//   taking [c I / groups, (c + 1) I / groups): whole columns where its range holds them, a segment
//   of one at either end; member r of the group computes row r of each. A column's row tiles then
//   walk the same K blocks at the same time, and B's blocks come from L2 for all but the first
//   (without the groups, stream-K ran 1.0-2.5x the old pick's time on 47 of 48 shapes: each B block
//   was read from DRAM once per row tile; docs/kernels/hopper-gemm.md, "Stream-K").
#if defined(__CUDACC__)
#define ASSAY_SEGMENTS_HD __host__ __device__
#else
#define ASSAY_SEGMENTS_HD
#endif

namespace assay::kernels::hopper {

// One tile's share of a CTA's K loop: K blocks [first, end) of `unit` (split-K: a tile; stream-K: a
// tile column), segment `index` of the `count` that cover it in K order (count 1: the whole tile,
// stored without the workspace).
struct Segment {
  int unit, first, end, index, count;
};

// Split-K's lines run along the operand the tiles read more of: every tile column reads all of A
// (ceil(n / tile_n) m k elements in all), every tile row all of B (ceil(m / tile_m) n k); a line's CTAs
// share one block of the operand it runs along. Measured (H200, `assay ab`, 20 shapes with m > n):
// this rule's order was faster or the same on 19, 2.2% slower on one (docs/kernels/hopper-gemm.md,
// "Split-K's order"); "rows where m > n" lost 5-9% on the three 64 x 128 shapes among them. One tile
// row (or column) keeps lines of one tile (each tile's splits together, the order of every record
// before lines) rather than one line of all its tiles: the two measured level (`assay ab`, six one-row
// shapes: 0.984-1.022).
ASSAY_SEGMENTS_HD constexpr bool split_lines_by_row(long long m, long long n, int tile_m, int tile_n) {
  const long long tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
  if (tiles_m == 1 || tiles_n == 1) return tiles_n == 1;  // lines of one tile
  return tiles_n * m > tiles_m * n;
}

// Which cut a walk makes: the kernel compiles split-K and stream-K as separate instances (`split`,
// `stream`), so that each holds only its own walk; `either` decides by `splits` at run time (the host
// tests' walk, the same code). `none`: the kernel's whole tiles, no segments. One instance of both
// walks ran split-K 2-7% slower than the split-only instance before it, hot or cold (`assay ab`,
// docs/kernels/hopper-gemm.md, "Split-K's order").
enum class Cut { none, split, stream, either };

// The segments of CTA `cta` of `ctas`, in order. Stream-K's iteration counts stay below 2^62 /
// groups (launch refuses larger), so c * total fits in 64 bits.
template <Cut K>
struct SegmentsOf {
  static_assert(K != Cut::none, "whole tiles have no segments");
  int rows, member, group, groups, splits, k_blocks, tiles_m, tiles_n;
  bool by_row;  // split-K's lines (above)
  long long total, pos, stop;
  ASSAY_SEGMENTS_HD SegmentsOf(int cta, int ctas, int tiles_m_, int tiles_n_, int splits_, int k_blocks_,
                               bool by_row_ = false)
      : rows(cuts_split(splits_) ? 1 : tiles_m_), member(cta % rows), group(cta / rows), groups(ctas / rows),
        splits(splits_), k_blocks(k_blocks_), tiles_m(tiles_m_), tiles_n(tiles_n_), by_row(by_row_) {
    const long long units = static_cast<long long>(tiles_n) * (split() ? tiles_m : 1);
    total = units * k_blocks;
    pos = split() ? group : begin(group);
    stop = split() ? units * splits : begin(group + 1);
  }
  // Split-K (else stream-K): known at compile time but for `either`.
  ASSAY_SEGMENTS_HD static constexpr bool cuts_split(int splits_) {
    return K == Cut::either ? splits_ > 0 : K == Cut::split;
  }
  ASSAY_SEGMENTS_HD bool split() const { return cuts_split(splits); }
  // Stream-K: the first iteration of group c, and the group whose range holds iteration i.
  ASSAY_SEGMENTS_HD long long begin(int c) const { return static_cast<long long>(c) * total / groups; }
  ASSAY_SEGMENTS_HD int owner(long long i) const {
    return static_cast<int>(((i + 1) * groups + total - 1) / total) - 1;
  }
  ASSAY_SEGMENTS_HD bool next(Segment& s) {
    if (pos >= stop) return false;
    if (split()) {
      // Line l of `line` tiles takes units [l line S, (l + 1) line S): split s of its tiles together.
      // In 32 bits (launch refuses tiles x splits above INT_MAX): a 64-bit division is a subroutine
      // of some 70 instructions on the GPU, and the walk's four of them cost split-K ~1-3% at one
      // segment per CTA (docs/kernels/hopper-gemm.md, "Split-K's order"). Split s of S takes
      // q = kb / S blocks, one more for the first kb % S splits.
      const int line = by_row ? tiles_n : tiles_m;
      const int per_line = line * splits;
      const int p = static_cast<int>(pos);
      const int l = p / per_line, w = p - l * per_line;
      s.index = w / line;
      s.unit = l * line + (w - s.index * line);
      s.count = splits;
      const int q = k_blocks / splits, r = k_blocks - q * splits;
      s.first = s.index * q + (s.index < r ? s.index : r);
      s.end = s.first + q + (s.index < r ? 1 : 0);
      pos += groups;
      return true;
    }
    s.unit = static_cast<int>(pos / k_blocks);
    const long long base = static_cast<long long>(s.unit) * k_blocks;
    const long long left = stop - base;
    s.first = static_cast<int>(pos - base);
    s.end = static_cast<int>(left < k_blocks ? left : k_blocks);
    const int lo = owner(base);
    s.index = group - lo;
    s.count = owner(base + k_blocks - 1) - lo + 1;
    pos = base + s.end;
    return true;
  }
  // The output tile of a segment: split-K's unit numbers the tiles along its lines, stream-K's is a
  // column whose row is this CTA's member of its group.
  ASSAY_SEGMENTS_HD void tile(const Segment& s, int& tm, int& tn) const {
    if (!split()) {
      tm = member;
      tn = s.unit;
    } else if (by_row) {
      tm = s.unit / tiles_n;
      tn = s.unit - tm * tiles_n;
    } else {
      tn = s.unit / tiles_m;
      tm = s.unit - tn * tiles_m;
    }
  }
  // The tile's counter (stream-K: tiles numbered column-major, a column's rows together).
  ASSAY_SEGMENTS_HD int counter(const Segment& s) const { return s.unit * rows + member; }
  // The workspace slot of segment j of a cut tile. Split-K: one per (tile, split). Stream-K: two
  // per CTA, for the first and the last tile of its range (the tiles between those are whole).
  ASSAY_SEGMENTS_HD long long slot(const Segment& s, int j) const {
    if (split()) return static_cast<long long>(s.unit) * splits + j;
    const int c = owner(static_cast<long long>(s.unit) * k_blocks) + j;
    return (2LL * c + (begin(c) / k_blocks == s.unit ? 0 : 1)) * rows + member;
  }
};
using Segments = SegmentsOf<Cut::either>;

}  // namespace assay::kernels::hopper
