#!/usr/bin/env bash
# assay profile with the real Nsight Compute on a GPU (issue 29 item 2): assay's Hopper GEMM and
# cuBLAS must come out compute-bound at 4096^3 and memory-bound at the copy-like shape of
# tests/data/profile_gpu.toml, each with a checked output and a kernel that issued wgmma.
# Exit 77 (ctest: skipped) without a GPU or ncu. Usage: profile_gpu.sh ASSAY SOURCE_DIR [OUT_DIR]
set -euo pipefail
assay=$1
src=$2
out=${3:-$(mktemp -d /tmp/assay-profile-gpu-XXXXXX)}
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "SKIP: no GPU"; exit 77; }
rc=0
(cd "$src" && "$assay" profile tests/data/profile_gpu.toml --filter '^gemm-(square|copy-like)/(assay|cublas)/' \
   --out "$out" --quiet) || rc=$?
[ "$rc" -eq 2 ] && { echo "SKIP: assay profile skipped (no ncu)"; exit 77; }
[ "$rc" -eq 0 ] || { echo "assay profile exited $rc"; exit 1; }
python3 - "$out" <<'PY'
import glob, json, sys
doc = json.load(open(glob.glob(sys.argv[1] + "/*.json")[0]))
want = {"gemm-square": "compute-bound", "gemm-copy-like": "memory-bound"}
seen = 0
for c in doc["cases"]:
    p = c["profile"]
    k = p["kernels"][0]
    line = "%-45s %-14s tensor %5.1f%%  DRAM %5.1f%%  wgmma %s" % (c["id"], p["bottleneck"], k["tensor_pipe_pct"],
                                                                   k["dram_pct"], k["wgmma_instructions"])
    print(line)
    assert c["status"] == "ok" and c["recheck"]["passed"] and c["recheck"]["inputs"] == "profiled", c["id"]
    assert p["bottleneck"] == want[c["bench"]], line
    assert k["wgmma_instructions"] > 0 and k["local_bytes"] == 0, line
    seen += 1
assert seen == 4, seen
print("profile_gpu: 4 cases classed as expected")
PY
