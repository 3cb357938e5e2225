#!/usr/bin/env bash
# v12 device call: a balanced persistent grid (grid/: grid.patch, ASSAY_EXP_GRID set: the fewest
# clusters that keep the number of rounds; 4096^3 pairs 66 -> 64) against the base (0fed76e): L2/LRC
# counts at bf16 4096^3 (ncu, hot), then a cold A/B over the protocol's multi-wave points.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v12
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum,launch__grid_size
C="sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep8/assay@wgmma_128x208_c2/f8e4m3/k=4096"
for b in base grid; do
  mkdir -p "$OUT/l2$b"
  if [ $b = grid ]; then export ASSAY_EXP_GRID=1; fi
  OUT=$OUT/l2$b BIN=build/strip/$([ $b = grid ] && echo grid) EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2$b.txt" 2>&1
  unset ASSAY_EXP_GRID
  (cd "$OUT/l2$b" && tar xzf l2logs.tgz && for f in *.log; do echo "== $b $f $(grep -E '^\s+(launch__grid_size|gpu__time_duration|lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)|dram__bytes_read)(\.sum)?\s' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done > "$OUT/lrc.txt"
SUITE=$D/grid.toml ROUNDS=3 VARIANTS=". grid@ASSAY_EXP_GRID=1" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
cat "$OUT/lrc.txt"; tail -14 "$OUT/ab.txt"
