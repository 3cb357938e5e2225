#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time: the kept corpus (tests/fuzz/corpus/<name>) is
# read, new inputs go to a scratch folder, and a crash leaves its input as an artifact in
# WORKDIR and fails the test (add that input to the kept corpus once the bug is fixed).
#   run_fuzzer.sh FUZZER CORPUS SECONDS WORKDIR
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3 work=$4
rm -rf "$work/new"; mkdir -p "$work/new"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/new" "$corpus"
