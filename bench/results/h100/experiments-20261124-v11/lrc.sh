#!/usr/bin/env bash
# v11 device call 2: the L2 request coalescer (LRC) and eviction-class counts of assay's and cuBLAS's
# kernels (ncu, hot), then a cold A/B of L2 eviction priorities (ASSAY_EXP_HINT) with their counts.
set -u
OUT=${OUT:-/tmp/out}; D=bench/results/h100/experiments-20261124-v11
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
X=lrc__lts2lrc_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__lrc2xbar_sectors_op_read_coalescing_achieved_type_programmatic.sum,lrc__lrc2xbar_sectors_op_read_coalescing_none.sum,lrc__xbar2gpc_sectors_op_read.sum,lrc__xbar2gpc_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__xbar2gpc_sectors_op_read_coalescing_achieved_type_programmatic.sum,lrc__xbar2lrc_requests_op_read.sum,lrc__xbar2lrc_requests_op_read_coalescing_type_programmatic.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,lrc__request_sectors_op_read_coalescing_achieved_type_programmatic.sum,lrc__xbar2lrc_requests_cmd_bypassed.sum,lts__t_sectors_srcunit_tex_op_read_evict_first.sum,lts__t_sectors_srcunit_tex_op_read_evict_last.sum,lts__t_sectors_srcunit_tex_op_read_evict_normal.sum,lts__t_sectors_srcunit_tex_op_read_evict_normal_demote.sum,l1tex__m_l1tex2xbar_read_requests_mem_global_op_tma_ld_dest_multicast.sum,l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld_dest_multicast.sum,l1tex__m_xbar2l1tex_read_sectors_mem_global_op_tma_ld_dest_self.sum,lts__t_sectors_op_write.sum,dram__bytes_write.sum
mkdir -p "$OUT/lrc" "$OUT/l2hint21" "$OUT/l2hint221"
OUT=$OUT/lrc EXTRA_METRICS=$X CASES="sweep/assay@wgmma_128x256_c2/bf16/k=4096 sweep/assay@wgmma_128x256/bf16/k=4096 sweep/cublas/bf16/k=4096 sweep/assay@wgmma_128x256/bf16/k=2048 sweep/cublas/bf16/k=2048 sweep8/assay@wgmma_128x208_c2/f8e4m3/k=4096 sweep8/cublas/f8e4m3/k=4096" \
  bash bench/scripts/l2_reads.sh > "$OUT/lrc.txt" 2>&1
SUITE=$D/hints.toml ROUNDS=2 VARIANTS=". .@ASSAY_EXP_HINT=1 .@ASSAY_EXP_HINT=21 .@ASSAY_EXP_HINT=121 .@ASSAY_EXP_HINT=221" \
  bash bench/scripts/ab_binaries.sh > "$OUT/ab.txt" 2>&1
OUT=$OUT/l2hint21 EXTRA_METRICS=$X ASSAY_EXP_HINT=21 CASES="sweep/assay@wgmma_128x256_c2/bf16/k=4096" bash bench/scripts/l2_reads.sh > "$OUT/l2hint21.txt" 2>&1
OUT=$OUT/l2hint221 EXTRA_METRICS=$X ASSAY_EXP_HINT=221 CASES="sweep/assay@wgmma_128x256_c2/bf16/k=4096" bash bench/scripts/l2_reads.sh > "$OUT/l2hint221.txt" 2>&1
cd "$OUT/lrc" && tar xzf l2logs.tgz && for f in *.log; do echo "== $f"; grep -E '^\s+(lrc__|lts__t_sectors_srcunit_tex_op_read_evict|l1tex__m_|dram__bytes_write|lts__t_sectors_op_write)' "$f" | awk '{print $1, $NF}'; done; rm -f ./*.log; cd - > /dev/null
cat "$OUT/lrc.txt" "$OUT/l2hint21.txt" "$OUT/l2hint221.txt"
tail -12 "$OUT/ab.txt"
