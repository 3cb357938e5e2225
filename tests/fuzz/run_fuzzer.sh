#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time: the kept corpus (tests/fuzz/corpus/<name>) is
# read, new inputs go to a scratch folder, and a crash leaves its input as an artifact in
# WORKDIR and fails the test (add that input to the kept corpus once the bug is fixed).
# The seed is fixed (ASSAY_FUZZ_SEED, default 1) and the number of inputs bounded (20,000: 6 to 25 s
# on a CI machine, under the time bound), so that a
# test run is reproducible: CI does not fail on what a lucky seed found today. To explore,
# set ASSAY_FUZZ_SEED=0 (libFuzzer picks one) and ASSAY_FUZZ_RUNS=-1 (no bound but the time).
#   run_fuzzer.sh FUZZER CORPUS SECONDS WORKDIR [SEED_DIR...]   (seed folders: read, never written)
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3 work=$4
shift 4
rm -rf "$work/new"; mkdir -p "$work/new"
exec "$fuzzer" -seed="${ASSAY_FUZZ_SEED:-1}" -runs="${ASSAY_FUZZ_RUNS:-20000}" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "$corpus" "$@"
