#!/usr/bin/env bash
# v12 device call 10: fp8 8192^3, energy-side counters of ours (192 paired, the pick; 192 alone) and
# cuBLASLt's kernel: DRAM, L2 lookups, LRC coalescing, instructions (ncu, hot, one launch each).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum,launch__grid_size,launch__cluster_dim_x,sm__cycles_active.avg,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_alu.sum
CASES="sweep8/assay@wgmma_128x192_c2/f8e4m3/k=8192 sweep8/assay@wgmma_128x192/f8e4m3/k=8192 sweep8/cublas/f8e4m3/k=8192" \
  EXTRA_METRICS=$X bash bench/scripts/l2_reads.sh > "$OUT/l2.txt" 2>&1
cd "$OUT" && tar xzf l2logs.tgz && for f in *.log; do echo "== $f"; grep -E '^\s+(launch__|lrc__|sm__cycles_active|smsp__inst_executed|dram__bytes_read|lts__t_sectors\.sum|gpu__time)' "$f" | awk '{print "   ", $1, $NF}'; grep -oE '(nvjet|sm90|hopper_gemm_kernel)[A-Za-z0-9_]*' "$f" | head -1; done > summary.txt; rm -f ./*.log
cat "$OUT/l2.txt" "$OUT/summary.txt"
