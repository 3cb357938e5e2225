#!/usr/bin/env bash
# L2 read traffic of single CTAs, pairs and cuBLAS (ncu, hot, one launch each).
BIN=${BIN:-build/strip}; OUT=${OUT:-/tmp/out}
M=gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,l1tex__m_xbar2l1tex_read_bytes.sum,lts__t_sectors.sum,dram__bytes_read.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum
printf '%-44s %10s %12s %12s %12s %12s %12s %10s %8s\n' case us rd_sectors rd_requests rd_hits xbar2l1 all_sectors dram_rd tensor%
for c in "sweep/assay@wgmma_128x256/bf16/k=2048" "sweep/assay@wgmma_128x256_c2/bf16/k=2048" "sweep/cublas/bf16/k=2048" \
         "sweep/assay@wgmma_128x256/bf16/k=4096" "sweep/assay@wgmma_128x256_c2/bf16/k=4096" "sweep/cublas/bf16/k=4096" \
         "sweep8/assay@wgmma_128x128/f8e4m3/k=4096" "sweep8/assay@wgmma_128x128_c2/f8e4m3/k=4096" "sweep8/cublas/f8e4m3/k=4096"; do
  kern='regex:hopper_gemm'; case "$c" in *cublas*) kern='regex:nvjet|sm90|gemm';; esac
  timeout 120 ncu --metrics $M -k "$kern" -s 6 -c 1 "$BIN/assay" run suites/gemm-hopper-sweep.toml --filter "^$c" \
    --mode hot --no-isolate --no-history --no-doctor --out "$OUT/scratch" > "$OUT/l2.log" 2>&1
  cp "$OUT/l2.log" "$OUT/$(echo $c | tr '/@=' '___').log"
  v() { awk -v m="$1" '$1==m {print $NF}' "$OUT/l2.log" | head -1; }
  printf '%-44s %10s %12s %12s %12s %12s %12s %10s %8s\n' "$c" "$(v gpu__time_duration.sum)" "$(v lts__t_sectors_srcunit_tex_op_read.sum)" \
    "$(v lts__t_requests_srcunit_tex_op_read.sum)" "$(v lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum)" "$(v l1tex__m_xbar2l1tex_read_bytes.sum)" \
    "$(v lts__t_sectors.sum)" "$(v dram__bytes_read.sum)" "$(v sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed)"
done
rm -rf "$OUT/scratch" "$OUT/l2.log"
cd "$OUT" && tar czf l2logs.tgz *.log && rm -f *.log
