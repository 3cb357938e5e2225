#!/usr/bin/env bash
# v11 device call 4: pairs row-major (ASSAY_EXP_HINT=1000) against grouped: LRC counts, cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/assay@wgmma_128x256_c2/bf16/k=4096"
mkdir -p "$OUT/lrcbase" "$OUT/lrcrows"
OUT=$OUT/lrcbase EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/lrcbase.txt" 2>&1
OUT=$OUT/lrcrows EXTRA_METRICS=$X ASSAY_EXP_HINT=1000 CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/lrcrows.txt" 2>&1
SUITE=$D/pairrows.toml ROUNDS=2 VARIANTS=". .@ASSAY_EXP_HINT=1000" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for d in lrcbase lrcrows; do (cd "$OUT/$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== $d $f"; grep -E '^\s+lrc__' "$f" | awk '{print $1, $NF}'; done; rm -f ./*.log); done
cat "$OUT/lrcbase.txt" "$OUT/lrcrows.txt"
tail -8 "$OUT/ab.txt"
