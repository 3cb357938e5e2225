#!/usr/bin/env bash
# v12 device call: the candidate (cand/: pairs ask for B before A; fp8 192 paired from 8 waves) against
# the base (HEAD ac1b327): LRC counts (ncu, hot) at bf16 4096^3 and fp8 4096^3, then a cold A/B.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v12
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
C="sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep8/assay@wgmma_128x208_c2/f8e4m3/k=4096"
for b in base cand; do
  bin=build/strip; [ $b = cand ] && bin=build/strip/cand
  mkdir -p "$OUT/l2$b"
  OUT=$OUT/l2$b BIN=$bin EXTRA_METRICS=$X CASES="$C" bash bench/scripts/l2_reads.sh > "$OUT/l2$b.txt" 2>&1
  (cd "$OUT/l2$b" && tar xzf l2logs.tgz && for f in *.log; do echo "== $b $f $(grep -E '^\s+(gpu__time_duration|lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)|dram__bytes_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log)
done > "$OUT/lrc.txt"
SUITE=$D/cand.toml ROUNDS=3 VARIANTS=". cand" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
cat "$OUT/lrc.txt"; tail -8 "$OUT/ab.txt"
