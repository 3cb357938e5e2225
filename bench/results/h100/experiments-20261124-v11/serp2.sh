#!/usr/bin/env bash
# v11 device call 7 (after fixing the experiment's pair order: calls 5 and 6 ran the pairs row-major
# whenever ASSAY_EXP_HINT >= 1000): reversed K on odd iterations plus reversed columns in odd groups
# (20000) against the base, pairs in the grouped order: DRAM reads under ncu, then a cold A/B, 3 rounds.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
C="sweep/assay/bf16/k=4096 sweep/assay/bf16/k=3072 sweep8/assay/f8e4m3/k=4096"
for v in 0 10000 20000; do mkdir -p "$OUT/l2-$v"; OUT=$OUT/l2-$v ASSAY_EXP_HINT=$v CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2-$v.txt" 2>&1; done
SUITE=$D/serp.toml ROUNDS=3 VARIANTS=". .@ASSAY_EXP_HINT=20000" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for v in 0 10000 20000; do echo "== $v"; tail -3 "$OUT/l2-$v.txt"; done
tail -10 "$OUT/ab.txt"
