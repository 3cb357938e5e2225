#!/usr/bin/env bash
# v11 device call 10: the 16-bit pairs issuing a stage's own A load once this CTA's consumers released
# the stage (owna/: owna.patch on d0dabb2), not once both CTAs' did: LRC counts, then a cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/assay@wgmma_128x256_c2/bf16/k=4096"
mkdir -p "$OUT/l2base" "$OUT/l2owna"
OUT=$OUT/l2base EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2base.txt" 2>&1
OUT=$OUT/l2owna BIN=build/strip/owna EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2owna.txt" 2>&1
SUITE=$D/pairrows.toml ROUNDS=3 VARIANTS=". owna" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for d in l2base l2owna; do (cd "$OUT/$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== $d $f $(grep -E '^\s+lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log); done
cat "$OUT/l2base.txt" "$OUT/l2owna.txt"
tail -6 "$OUT/ab.txt"
