#!/usr/bin/env bash
# v16 device calls: the samplers' GPU tests (unless SKIP_TESTS), then the gap suites in ORDER (default: gap0 / gap150, three pairs).
set -u
OUT=${OUT:-/tmp/out}; BIN=${BIN:-build/strip}; D=bench/results/h100/experiments-20261124-v16
mkdir -p "$OUT/results"
[ -n "${SKIP_TESTS:-}" ] || timeout 120 "$BIN/assay_gpu_tests" --gtest_filter='ColdSampler*:HotAndGraph*:HostSampler*' --gtest_brief=1 > "$OUT/sampler_tests.txt" 2>&1
echo "sampler tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/sampler_tests.txt" | tr '\n' ' ')" > "$OUT/summary.txt"
i=0
for g in ${ORDER:-0 150 150 0 0 150}; do
  i=$((i+1))
  timeout 200 "$BIN/assay" run "$D/gap$g.toml" --out "$OUT/results/run$i-gap$g" --no-history > "$OUT/results/run$i-gap$g.log" 2>&1
  echo "run$i gap$g rc=$?" >> "$OUT/summary.txt"
done
python3 "$D/gap_table.py" "$OUT"/results/run* > "$OUT/table.md"
tar cJf "$OUT/results.tar.xz" -C "$OUT" results && rm -rf "$OUT/results"
cat "$OUT/summary.txt" "$OUT/table.md"
