#!/usr/bin/env bash
# v11 device call: single 128x256 CTAs in 2-CTA clusters (ASSAY_EXP_CLUSTER1) against the same CTAs
# unclustered, the multicast pair and cuBLAS: cold A/B with clocks, then L2 counts under ncu.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
ncu --query-metrics --chip gh100 > "$OUT/ncu-metrics-gh100.txt" 2>&1
SUITE=$D/pairlaunch.toml ROUNDS=2 VARIANTS=". .@ASSAY_EXP_CLUSTER1=pairs" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
k4="sweep/assay@wgmma_128x256/bf16/k=4096"; k2="sweep/assay@wgmma_128x256/bf16/k=2048"
lrc=$(awk '$1 ~ /^lrc__t_(sectors|requests)$/ {printf "%s%s.sum", s, $1; s=","}' "$OUT/ncu-metrics-gh100.txt")
mkdir -p "$OUT/l2base" "$OUT/l2pairs"
OUT=$OUT/l2base EXTRA_METRICS=$lrc CASES="$k4 sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep/cublas/bf16/k=4096 $k2 sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/cublas/bf16/k=2048" \
  bash bench/scripts/l2_reads.sh > "$OUT/l2base.txt" 2>&1
OUT=$OUT/l2pairs EXTRA_METRICS=$lrc ASSAY_EXP_CLUSTER1=pairs CASES="$k4 $k2" bash bench/scripts/l2_reads.sh > "$OUT/l2pairs.txt" 2>&1
grep -i '^lrc' "$OUT/ncu-metrics-gh100.txt" | head -40
echo "lrc metrics: $lrc"
cat "$OUT/l2base.txt" "$OUT/l2pairs.txt"
cat "$OUT/ab.txt" | tail -20
