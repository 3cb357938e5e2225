#!/usr/bin/env bash
# v11 device call 9: single 128x256 CTAs in raster groups of 16 tile rows (g16/: the record's source with
# kGroupM 16 for 16-bit single CTAs; its two SMs of a TPC, blocks i and i+8, then share B, and a wave
# has the pairs' shape) against the record's binary: L2 lookups and LRC coalescing, then a cold A/B.
# Also the LRC counts with a warm L2 (ncu --cache-control none): do hits coalesce, or only misses?
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum
mkdir -p "$OUT/l2base" "$OUT/l2g16"
OUT=$OUT/l2base EXTRA_METRICS=$X CASES="sweep/assay@wgmma_128x256/bf16/k=4096 sweep/assay@wgmma_128x256_c2/bf16/k=4096" bash bench/scripts/l2_reads.sh > "$OUT/l2base.txt" 2>&1
OUT=$OUT/l2g16 BIN=build/strip/g16 EXTRA_METRICS=$X CASES="sweep/assay@wgmma_128x256/bf16/k=4096" bash bench/scripts/l2_reads.sh > "$OUT/l2g16.txt" 2>&1
for c in sweep/cublas/bf16/k=2048 sweep/assay@wgmma_128x256_c2/bf16/k=2048 sweep/assay@wgmma_128x256/bf16/k=2048; do
  kern='regex:hopper_gemm'; case "$c" in *cublas*) kern='regex:nvjet|sm90|gemm';; esac
  for cc in all none; do
    echo "== $c cache-control $cc: $(timeout 120 ncu --cache-control $cc --metrics $X,dram__bytes_read.sum -k "$kern" -s 6 -c 1 build/strip/assay run suites/gemm-hopper-sweep.toml \
      --filter "^$c" --mode hot --no-isolate --no-history --no-doctor --out "$OUT/scratch" 2>&1 | grep -E '^\s+(lrc__|dram__)' | awk '{printf "%s=%s ", $1, $NF}')"
  done
done > "$OUT/warm.txt"
rm -rf "$OUT/scratch"
SUITE=$D/pairlaunch.toml ROUNDS=2 VARIANTS=". g16" bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
for d in l2base l2g16; do (cd "$OUT/$d" && tar xzf l2logs.tgz && for f in *.log; do echo "== $d $f $(grep -E '^\s+lrc__(request_sectors_op_read_coalescing_achieved_type_hardware|lrc2xbar_sectors_op_read)\.sum' "$f" | awk '{printf "%s=%s ", $1, $NF}')"; done; rm -f ./*.log); done
cat "$OUT/l2base.txt" "$OUT/l2g16.txt" "$OUT/warm.txt"
tail -10 "$OUT/ab.txt"
