#!/usr/bin/env bash
# v12 device call: producer/consumer timing knobs (knobs.patch, ASSAY_EXP_V12 bits: 1 B before A,
# 2 producer nanosleep polling, 4 per-warp-group barrier before each stage, 8 A in two 64-row boxes)
# on the 16-bit pairs: LRC coalescing (ncu, hot) at bf16 2048^3 and 4096^3, then a cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v12
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/assay@wgmma_128x256_c2/bf16/k=4096"
for k in 0 1 2 4 8; do
  mkdir -p "$OUT/l2k$k"
  OUT=$OUT/l2k$k BIN=build/strip/k12 ASSAY_EXP_V12=$k EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2k$k.txt" 2>&1
done
SUITE=$D/pairrows.toml ROUNDS=2 VARIANTS=". k12@ASSAY_EXP_V12=1 k12@ASSAY_EXP_V12=2 k12@ASSAY_EXP_V12=4 k12@ASSAY_EXP_V12=8" \
  bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for k in 0 1 2 4 8; do (cd "$OUT/l2k$k" && tar xzf l2logs.tgz && for f in *.log; do echo "== k$k $f $(grep -E '^\s+(gpu__time_duration|lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)|dram__bytes_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log); done
tail -14 "$OUT/ab.txt"
