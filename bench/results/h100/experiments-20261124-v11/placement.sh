#!/usr/bin/env bash
# v11 device call 3: CTA placement (placement.cu) and the LRC counts of the pair at one wave.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
build/carry/placement > "$OUT/placement.txt" 2>&1
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
mkdir -p "$OUT/lrc" "$OUT/lrcpairs"
OUT=$OUT/lrc EXTRA_METRICS=$X CASES="sweep/assay@wgmma_128x256_c2/bf16/k=2048" bash bench/scripts/l2_reads.sh > "$OUT/lrc.txt" 2>&1
OUT=$OUT/lrcpairs EXTRA_METRICS=$X ASSAY_EXP_CLUSTER1=pairs CASES="sweep/assay@wgmma_128x256/bf16/k=2048" bash bench/scripts/l2_reads.sh > "$OUT/lrcpairs.txt" 2>&1
for d in lrc lrcpairs; do (cd "$OUT/$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== $d $f"; grep -E '^\s+lrc__' "$f" | awk '{print $1, $NF}'; done; rm -f ./*.log); done
cat "$OUT/lrc.txt" "$OUT/lrcpairs.txt"
cat "$OUT/placement.txt"
