#!/usr/bin/env bash
# One device call for the Hopper GEMM work (issue 5): SASS and register facts, the GPU tests,
# then the suites named on the command line. Full logs under $OUT; a short table last.
#   bench/scripts/gemm_hopper_device.sh [tests] [clitests] [sweep] [profile] [sass] [protocol] [protocol3]
set -u
OUT=${OUT:-/tmp/out}
BIN=${BIN:-build/release/bin}  # or a folder of stripped copies, when the tree is near the carry limit
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  > "$OUT/gpu.txt" 2>&1
summary=()

# Nsight Compute with the given options on one launch of the cases matching id regex $1 (after
# the 384^3 check and the warm-up launches), on assay's or cuBLAS's kernels by the case's
# backend; its output goes to $2.
ncu_case() {
  local c=$1 log=$2 kern='regex:hopper_gemm|mma_sync|simt'
  shift 2
  case "$c" in *cublas*) kern='regex:nvjet|xmma|cutlass|sm90|gemm';; esac
  timeout 240 ncu "$@" --import-source no -k "$kern" -s 6 -c 1 \
    "$BIN/assay" run suites/gemm-hopper-sweep.toml --filter "^$c" --mode hot --no-isolate --no-history \
    --no-doctor --out "$OUT/ncu_scratch" > "$log" 2>&1
}

# SASS: the Hopper kernels must issue HGMMA (fp16/bf16) and QGMMA (fp8); no local memory.
cuobjdump -sass "$BIN/assay" > "$OUT/assay.sass" 2>/dev/null
summary+=("sass: HGMMA=$(grep -c HGMMA "$OUT/assay.sass") QGMMA=$(grep -c QGMMA "$OUT/assay.sass") \
UTMALDG=$(grep -c UTMALDG "$OUT/assay.sass") LDL/STL-in-hopper=$(awk '/Function : .*hopper_gemm_kernel/{h=1} /Function : /&&!/hopper_gemm_kernel/{h=0} h&&/LDL|STL/' "$OUT/assay.sass" | wc -l)")
cuobjdump -res-usage "$BIN/assay" 2>/dev/null | grep -A1 hopper_gemm_kernel > "$OUT/res_usage.txt"

for step in "$@"; do
  case "$step" in
    tests)
      timeout 400 "$BIN/assay_gpu_tests" --gtest_brief=1 > "$OUT/gpu_tests.txt" 2>&1
      summary+=("assay_gpu_tests rc=$? $(grep -E '^\[  (PASSED|FAILED)|tests? ran' "$OUT/gpu_tests.txt" | tr '\n' ' ')")
      ;;
    clitests)
      timeout 300 "$BIN/assay_cli_tests" --gtest_brief=1 > "$OUT/cli_tests.txt" 2>&1
      summary+=("assay_cli_tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' "$OUT/cli_tests.txt" | tr '\n' ' ')")
      ;;
    sweep)
      timeout 560 "$BIN/assay" run suites/gemm-hopper-sweep.toml --out "$OUT/results" --no-history > "$OUT/sweep.txt" 2>&1
      summary+=("sweep rc=$?")
      ;;
    profile)
      # Nsight Compute (every metric of the full set, raw page) per case id regex in
      # $PROFILE_CASES (default: 4096^3 bf16 and fp8, assay and cuBLAS). Reports go into the archive.
      mkdir -p "$OUT/results/ncu"
      cases=${PROFILE_CASES:-"sweep/assay@wgmma_128x256/bf16/k=4096 sweep/cublas/bf16/k=4096 sweep8/assay/f8e4m3/k=4096 sweep8/cublas/f8e4m3/k=4096"}
      for c in $cases; do
        name=$(echo "$c" | tr '/@=,' '____')
        ncu_case "$c" "$OUT/results/ncu/$name.txt" --set full --page raw
        f="$OUT/results/ncu/$name.txt"
        pick() { awk -v m="$1" '$1==m {print $NF; exit}' "$f"; }
        summary+=("ncu $c: $(grep -oE '(nvjet|hopper_gemm_kernel|[a-z_]*gemm[a-z_0-9]*)[^ (]*' "$f" | head -1 | cut -c1-50) \
us=$(pick gpu__time_duration.sum) grid=$(pick launch__grid_size) \
sm_active%=$(pick sm__cycles_active.avg.pct_of_peak_sustained_elapsed) \
tensor%=$(pick sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed) \
l2%=$(pick lts__t_sectors.avg.pct_of_peak_sustained_elapsed) \
stall(per issue) gmma=$(pick smsp__average_warps_issue_stalled_gmma_per_issue_active.ratio) \
wait=$(pick smsp__average_warps_issue_stalled_wait_per_issue_active.ratio) \
barrier=$(pick smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio) \
longsb=$(pick smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio) \
lgthr=$(pick smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio) \
mio=$(pick smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio)")
      done
      rm -rf "$OUT/ncu_scratch"
      ;;
    sass)
      # Per-instruction stall samples (SourceCounters) of the same cases as `profile`: the report
      # and its SASS source page go into the archive; bench/scripts/sass_stalls.py reads the page.
      mkdir -p "$OUT/results/ncu"
      cases=${PROFILE_CASES:-"sweep/assay@wgmma_128x256/bf16/k=4096 sweep8/assay@wgmma_128x128/f8e4m3/k=4096"}
      for c in $cases; do
        name=$(echo "$c" | tr '/@=,' '____')
        ncu_case "$c" "$OUT/results/ncu/$name.log" --section SourceCounters --section WarpStateStats \
          --section SpeedOfLight -o "$OUT/results/ncu/$name"
        ncu --import "$OUT/results/ncu/$name.ncu-rep" --page source --print-source sass --csv \
          > "$OUT/results/ncu/$name.sass.csv" 2>&1
        summary+=("sass $c: $(python3 bench/scripts/sass_stalls.py "$OUT/results/ncu/$name.sass.csv" 1 | sed -n 2p)")
      done
      rm -rf "$OUT/ncu_scratch"
      ;;
    protocol)
      timeout 560 "$BIN/assay" run suites/gemm-hopper.toml --out "$OUT/results" --no-history > "$OUT/protocol.txt" 2>&1
      summary+=("protocol rc=$?")
      ;;
    protocol3)
      timeout 590 "$BIN/assay" run suites/gemm-hopper.toml --repeat 3 --out "$OUT/results" --no-history \
        > "$OUT/protocol3.txt" 2>&1
      summary+=("protocol x3 rc=$?")
      ;;
  esac
done
cat "$OUT/gpu.txt"
for f in sweep protocol protocol3; do [ -f "$OUT/$f.txt" ] && tail -n 45 "$OUT/$f.txt"; done
printf '%s\n' "${summary[@]}"
# The device tool returns at most 8 files from $OUT (past that it drops files, possibly this
# archive): the results and every log but the SASS dump travel as one archive, so a caller's
# own file beside them (its captured stdout) still fits.
mkdir -p "$OUT/results/logs"
for f in gpu sweep protocol protocol3 gpu_tests cli_tests res_usage; do
  [ -f "$OUT/$f.txt" ] && mv "$OUT/$f.txt" "$OUT/results/logs/"
done
tar czf "$OUT/results.tgz" -C "$OUT" results && rm -rf "$OUT/results"
