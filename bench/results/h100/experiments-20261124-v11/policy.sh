#!/usr/bin/env bash
# v11 device call 6: cluster scheduling policies (ASSAY_EXP_HINT=100000 spread, 200000 load balancing;
# +1000: pairs row-major): placement (placement.cu), LRC counts of the pairs, cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
build/carry/placement > "$OUT/placement.txt" 2>&1
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/assay@wgmma_128x256_c2/bf16/k=4096"
for v in 100000 101000 200000 201000; do
  mkdir -p "$OUT/lrc-$v"; OUT=$OUT/lrc-$v EXTRA_METRICS=$X ASSAY_EXP_HINT=$v CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/lrc-$v.txt" 2>&1
  (cd "$OUT/lrc-$v" && tar xzf l2logs.tgz && for f in *.log; do echo "== $v $f $(grep -E '^\s+lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done
SUITE=$D/pairrows.toml ROUNDS=2 VARIANTS=". .@ASSAY_EXP_HINT=100000 .@ASSAY_EXP_HINT=101000 .@ASSAY_EXP_HINT=200000" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for v in 100000 101000 200000 201000; do echo "== $v"; tail -2 "$OUT/lrc-$v.txt"; done
tail -6 "$OUT/ab.txt"
grep -E 'policy [0-9] rep 0: tpc' "$OUT/placement.txt" | cut -c1-400
grep -E 'cluster 2 policy [0-9] rep 0: block' "$OUT/placement.txt" | cut -c1-700
