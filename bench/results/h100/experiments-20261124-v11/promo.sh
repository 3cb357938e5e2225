#!/usr/bin/env bash
# v11 device call 13: the tensor maps' L2 promotion (ASSAY_EXP_PROMO=256 base, 128, 0 none; a host-side
# knob, the kernels unchanged): with 256-byte promotion a request also fills the next 128 bytes of the
# row (the next K block), which its sharers then hit one at a time instead of meeting on a miss, the
# case the LRC coalesces (lrc_probe.cu). LRC counts, then a cold A/B, 3 rounds.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep/cublas/bf16/k=4096 sweep8/assay/f8e4m3/k=4096"
for v in 256 128 0; do
  mkdir -p "$OUT/l2-$v"; OUT=$OUT/l2-$v ASSAY_EXP_PROMO=$v EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2-$v.txt" 2>&1
  (cd "$OUT/l2-$v" && tar xzf l2logs.tgz && for f in *.log; do echo "== $v $f $(grep -E '^\s+lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done
SUITE=$D/promo.toml ROUNDS=3 VARIANTS=".@ASSAY_EXP_PROMO=256 .@ASSAY_EXP_PROMO=128 .@ASSAY_EXP_PROMO=0" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for v in 256 128 0; do tail -3 "$OUT/l2-$v.txt"; done
tail -6 "$OUT/ab.txt"
