#!/usr/bin/env bash
# v12 device call 9: small delays (100, 150, 250 cycles) between the 16-bit pairs' B multicast and A:
# LRC counts (ncu, hot, bf16 4096^3) and a cold A/B of three rounds against the base (d484cfb).
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v12
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum
for d in 100 250; do
  mkdir -p "$OUT/l2d$d"
  ASSAY_EXP_DELAY=$d OUT=$OUT/l2d$d BIN=build/strip/dly EXTRA_METRICS=$X CASES="sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep/assay@wgmma_128x256_c2/f16/k=4096" bash bench/scripts/l2_reads.sh > "$OUT/l2d$d.txt" 2>&1
  (cd "$OUT/l2d$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== d$d $f $(grep -E '^\s+(gpu__time_duration|lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read))\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done > "$OUT/lrc.txt"
SUITE=$D/d16.toml ROUNDS=3 VARIANTS=". dly@ASSAY_EXP_DELAY=100 dly@ASSAY_EXP_DELAY=150 dly@ASSAY_EXP_DELAY=250" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
cat "$OUT/lrc.txt"; tail -4 "$OUT/ab.txt"
