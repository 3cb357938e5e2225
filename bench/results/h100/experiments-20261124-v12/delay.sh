#!/usr/bin/env bash
# v12 device call 8: cycles of delay between the pairs' B multicast and their own A load (dly/:
# delay.patch, ASSAY_EXP_DELAY) against LRC coalescing (ncu, hot, bf16 4096^3), a cold A/B of two
# delays against the base (d484cfb), then the final binary's GPU and CLI tests (final/: a03b22c).
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v12
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=4096"
for d in 0 150 400 800 1600; do
  mkdir -p "$OUT/l2d$d"
  ASSAY_EXP_DELAY=$d OUT=$OUT/l2d$d BIN=build/strip/dly EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2d$d.txt" 2>&1
  (cd "$OUT/l2d$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== d$d $f $(grep -E '^\s+(gpu__time_duration|lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)|dram__bytes_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done > "$OUT/lrc.txt"
cat "$OUT/lrc.txt"
SUITE=$D/cand.toml ROUNDS=2 VARIANTS=". dly@ASSAY_EXP_DELAY=400 dly@ASSAY_EXP_DELAY=1600" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
tail -6 "$OUT/ab.txt"
timeout 300 build/strip/final/assay_gpu_tests --gtest_brief=1 > "$OUT/final-gpu-tests.txt" 2>&1; echo "gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/final-gpu-tests.txt)"
timeout 200 build/strip/final/assay_cli_tests --gtest_brief=1 > "$OUT/final-cli-tests.txt" 2>&1; echo "cli tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $OUT/final-cli-tests.txt)"
build/strip/final/assay --version
