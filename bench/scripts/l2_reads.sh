#!/usr/bin/env bash
# L2 read traffic per kernel (Nsight Compute, hot mode, one launch each, after the 384^3 check and
# warm-up launches): the cases of suites/gemm-hopper-sweep.toml named by id prefix in $CASES; a table
# last, each case's raw ncu output in l2logs.tgz under $OUT. (v7's experiment ran a copy of this with
# its cases written in: bench/results/h100/experiments-20261122-v6/l2.sh.)
# More metrics (kept in the raw logs, not in the table): EXTRA_METRICS=name.sum,...
#   CASES="sweep8/assay@wgmma_128x208_c2/f8e4m3/k=4096 sweep8/cublas/f8e4m3/k=4096" bench/scripts/l2_reads.sh
BIN=${BIN:-build/strip}; OUT=${OUT:-/tmp/out}
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors.sum,dram__bytes_read.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum${EXTRA_METRICS:+,$EXTRA_METRICS}
row='%-46s %10s %12s %12s %12s %12s %12s %10s %8s\n'
printf "$row" case us rd_sectors rd_requests rd_hits xbar2l1 all_sectors dram_rd tensor%
for c in ${CASES:?name the cases}; do
  kern='regex:hopper_gemm'; case "$c" in *cublas*) kern='regex:nvjet|sm90|gemm';; esac
  log="$OUT/$(echo "$c" | tr '/@=' '___').log"
  timeout 120 ncu --metrics $M -k "$kern" -s 6 -c 1 "$BIN/assay" run suites/gemm-hopper-sweep.toml --filter "^$c" \
    --mode hot --no-isolate --no-history --no-doctor --out "$OUT/scratch" > "$log" 2>&1
  v() { awk -v m="$1" '$1==m {print $NF}' "$log" | head -1; }
  printf "$row" "$c" "$(v gpu__time_duration.sum)" "$(v lts__t_sectors_srcunit_tex_op_read.sum)" \
    "$(v lts__t_requests_srcunit_tex_op_read.sum)" "$(v lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum)" \
    "$(v l1tex__m_xbar2l1tex_read_bytes.sum)" "$(v lts__t_sectors.sum)" "$(v dram__bytes_read.sum)" \
    "$(v sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed)"
done
rm -rf "$OUT/scratch"
cd "$OUT" && tar czf l2logs.tgz ./*.log && rm -f ./*.log
