#!/usr/bin/env bash
# v11 device call 12: 16-bit pairs in raster groups of 4 pair rows (gm4/: gm4.patch on d0dabb2; a wave
# is 4 pair rows x 16 columns, so each A row is first read by 16 CTAs in different chunks at once, the
# misses the LRC coalesces: lrc_probe.cu) against the base (8): LRC counts, then a cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=4096"
mkdir -p "$OUT/l2base" "$OUT/l2gm4"
OUT=$OUT/l2base EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2base.txt" 2>&1
OUT=$OUT/l2gm4 BIN=build/strip/gm4 EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2gm4.txt" 2>&1
SUITE=bench/results/h100/experiments-20261123-v10/pairorder.toml ROUNDS=3 VARIANTS=". gm4" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for d in l2base l2gm4; do (cd "$OUT/$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== $d $f $(grep -E '^\s+lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log); done
cat "$OUT/l2base.txt" "$OUT/l2gm4.txt"
tail -4 "$OUT/ab.txt"
