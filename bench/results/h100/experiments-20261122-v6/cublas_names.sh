#!/usr/bin/env bash
# Which kernel cuBLAS runs per case (ncu, one launch each, names and grid only).
BIN=${BIN:-build/strip}; OUT=${OUT:-/tmp/out}
for c in "gemm16/cublas/f16/k=2048" "gemm16/cublas/bf16/k=2048" "gemm16/cublas/f16/k=3072" "gemm16/cublas/bf16/k=3072" "gemm16/cublas/f16/k=4096"; do
  timeout 60 ncu --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y -k 'regex:nvjet|xmma|cutlass|sm90|gemm' -s 6 -c 1 \
    "$BIN/assay" run exp/v6.toml --filter "^$c" --mode hot --no-isolate --no-history --no-doctor --out "$OUT/ncu_scratch" > "$OUT/names.log" 2>&1
  echo "$c: $(grep -oE '(nvjet|sm90)[A-Za-z0-9_]*' "$OUT/names.log" | head -1) $(grep -E 'launch__grid_size|launch__cluster_dim' "$OUT/names.log" | awk '{print $1"="$NF}' | tr '\n' ' ')"
done
rm -rf "$OUT/ncu_scratch" "$OUT/names.log"
