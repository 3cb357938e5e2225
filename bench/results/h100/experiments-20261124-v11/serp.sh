#!/usr/bin/env bash
# v11 device call 5: reversed K on odd iterations (10000), plus reversed columns in odd groups (20000):
# DRAM reads under ncu, then the cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
C="sweep/assay/bf16/k=4096 sweep/assay/bf16/k=8192 sweep8/assay/f8e4m3/k=8192"
for v in 0 10000 20000; do mkdir -p "$OUT/l2-$v"; OUT=$OUT/l2-$v ASSAY_EXP_HINT=$v CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2-$v.txt" 2>&1; done
SUITE=$D/serp.toml ROUNDS=2 VARIANTS=". .@ASSAY_EXP_HINT=10000 .@ASSAY_EXP_HINT=20000" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for v in 0 10000 20000; do echo "== $v"; cat "$OUT/l2-$v.txt"; done
tail -14 "$OUT/ab.txt"
