#!/usr/bin/env bash
# v11 device call 14: lrc_probe with the GEMM's 2-D A boxes (layout 2) beside the 1-D copies (layout 1).
set -u
OUT=${OUT:-/tmp/out}
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,dram__bytes_read.sum,gpu__time_duration.sum
build/carry/lrc_probe > "$OUT/probe_plain.txt" 2>&1
timeout 300 ncu --cache-control none --metrics $X -k probe build/carry/lrc_probe > "$OUT/probe_ncu.txt" 2>&1
echo "rc=$?"; grep -c '^launch' "$OUT/probe_ncu.txt"; grep -i error "$OUT/probe_plain.txt" | head -3
