#!/usr/bin/env bash
# v11 device call 11: lrc_probe (LRC coalescing by sharers' placement, start offset, hits/misses).
set -u
OUT=${OUT:-/tmp/out}
X=lrc__lrc2xbar_sectors_op_read.sum,lrc__request_sectors_op_read_coalescable.sum,lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum,dram__bytes_read.sum,gpu__time_duration.sum
build/carry/lrc_probe > "$OUT/probe_plain.txt" 2>&1
timeout 300 ncu --cache-control none --metrics $X -k probe build/carry/lrc_probe > "$OUT/probe_ncu.txt" 2>&1
echo "rc=$?"
tail -3 "$OUT/probe_plain.txt"
grep -E '^\s+lrc__request_sectors_op_read_coalescing_achieved_type_hardware' "$OUT/probe_ncu.txt" | awk '{printf "%s ", $NF} END {print ""}'
grep -E '^\s+lrc__lrc2xbar_sectors_op_read' "$OUT/probe_ncu.txt" | awk '{printf "%s ", $NF} END {print ""}'
