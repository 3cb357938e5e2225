#!/usr/bin/env bash
# One device call for the attention work (issue 27): SASS and register facts of the flash
# kernels, the attention GPU tests, then the suite. Full logs under $OUT; a short table last.
#   bench/scripts/attention_device.sh [tests] [alltests] [once] [protocol3] [record] [FILTER=regex]
# record: ONE session of the record against the newest cuDNN there, PyTorch's
# (ASSAY_CUDNN_LIBRARY_DIR), tagged $TAG: the suite takes ~200 s a session, so three do not fit
# one 600 s device command. Call it three times, then on this side put the three documents in
# one folder and `assay sessions DOCS... --out FOLDER` writes sessions.json/.md (docs/compare.md).
# The device tool returns at most 8 files from $OUT: at the end the
# logs are packed into one $OUT/logs.tar and the SASS dump (too large to return) is deleted, so
# an invocation leaves two files (record.tar and logs.tar), and one device call may hold several,
# each with its own OUT=$OUT/sN (a folder down still comes back).
set -u
OUT=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH
BIN=${BIN:-build/release/bin}
SUITE=${SUITE:-suites/attention-hopper.toml}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv \
  > "$OUT/gpu.txt" 2>&1
summary=()
filter=()

# SASS: the flash kernels issue HGMMA (Hopper) or HMMA (mma.sync) and use no local memory.
cuobjdump -sass "$BIN/assay" > "$OUT/assay.sass" 2>/dev/null
flash_sass() { awk '/Function : .*flash_/{h=1} /Function : /&&!/flash_/{h=0} h' "$OUT/assay.sass"; }
summary+=("sass flash: HGMMA=$(flash_sass | grep -c HGMMA) HMMA=$(flash_sass | grep -c 'HMMA\.') LDL/STL=$(flash_sass | grep -cE 'LDL|STL')")
cuobjdump -res-usage "$BIN/assay" 2>/dev/null | grep -A1 flash_fwd > "$OUT/res_usage.txt"

for step in "$@"; do
  case "$step" in FILTER=*) filter=(--filter "${step#FILTER=}") ;; esac
done
for step in "$@"; do
  case "$step" in
    tests)
      timeout 500 "$BIN/assay_gpu_tests" --gtest_brief=1 --gtest_filter='*Attention*:*Cudnn*' > "$OUT/attention_tests.txt" 2>&1
      summary+=("attention gpu tests rc=$? $(grep -E '^\[  (PASSED|FAILED)|tests? ran' "$OUT/attention_tests.txt" | tr '\n' ' ')")
      ;;
    alltests)
      timeout 560 "$BIN/assay_gpu_tests" --gtest_brief=1 > "$OUT/gpu_tests.txt" 2>&1
      summary+=("assay_gpu_tests rc=$? $(grep -E '^\[  (PASSED|FAILED)|tests? ran' "$OUT/gpu_tests.txt" | tr '\n' ' ')")
      ;;
    once)
      timeout 560 "$BIN/assay" run "$SUITE" "${filter[@]}" --out "$OUT/results" --no-history \
        > "$OUT/once.txt" 2>&1
      summary+=("attention-hopper once rc=$?")
      ;;
    record)
      ASSAY_CUDNN_LIBRARY_DIR=$(python3 -c "import nvidia.cudnn as m; print(list(m.__path__)[0])")/lib
      export ASSAY_CUDNN_LIBRARY_DIR
      "$BIN/assay" list 2>&1 | grep -E "^  cudnn" > "$OUT/cudnn_used.txt"
      timeout 585 "$BIN/assay" run "$SUITE" "${filter[@]}" --tag "${TAG:?record needs TAG}" --out "$OUT/record" \
        --no-history > "$OUT/record.txt" 2>&1
      summary+=("record rc=$? $(cat "$OUT/cudnn_used.txt")")
      tar -C "$OUT/record" -cf "$OUT/record.tar" . && rm -rf "$OUT/record"
      ;;
    protocol3)
      timeout 590 "$BIN/assay" run "$SUITE" "${filter[@]}" --repeat 3 --out "$OUT/results" \
        --no-history > "$OUT/protocol3.txt" 2>&1
      summary+=("attention-hopper x3 rc=$?")
      ;;
  esac
done

# The short table: each case's median, speedup over the baseline and TFLOP/s, from the summary.
for md in $(find "$OUT/results" -name '*.md' 2>/dev/null | sort); do
  echo "== $md"
  grep -E '^\| (mission|fuzz|long)' "$md" | cut -c1-160 | head -70
done
printf '%s\n' "${summary[@]}"
rm -f "$OUT/assay.sass"
(cd "$OUT" && find . -maxdepth 1 -type f ! -name record.tar ! -name logs.tar -printf '%f\n' | tar -cf logs.tar -T - --remove-files)
(cd "$OUT" && [ -d results ] && tar -rf logs.tar results --remove-files) 2>/dev/null
true
