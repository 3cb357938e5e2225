#!/usr/bin/env bash
# Issue 30 item 3: assay installed into a prefix (cmake --install), then the C++ examples
# configured apart with find_package(assay) and built against it, and their CPU parts run:
#   examples/cpp_saxpy   a new workload with its oracle: ./cpp_saxpy --device cpu must pass (exit 0)
#   examples/cpp_gemm    (CUDA builds) a naive CUDA GEMM against cuBLAS: built, its kernel listed;
#                        with --device cpu nothing of it can run here (exit 2)
# Usage: test_examples.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d /tmp/assay-install-XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -x "$work/prefix/bin/assay"
test -f "$work/prefix/include/assay/bench.hpp"
test -f "$work/prefix/share/assay/adapters/torch_adapter.py"

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cuda=$(sed -n 's/^set(ASSAY_WITH_CUDA \(.*\))$/\1/p' "$work/prefix/lib/cmake/assay/assayConfig.cmake")

cmake -S "$src/examples/cpp_saxpy" -B "$work/saxpy" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/saxpy.log" 2>&1 || { cat "$work/saxpy.log"; exit 1; }
cmake --build "$work/saxpy" -j 2 >>"$work/saxpy.log" 2>&1 || { cat "$work/saxpy.log"; exit 1; }
"$work/saxpy/cpp_saxpy" --device cpu --no-history --out "$work/saxpy-out"
test -f "$work/saxpy-out/cpp_saxpy.suite.toml"
grep -q '"status": "ok"' "$work"/saxpy-out/*.json
"$work/saxpy/cpp_saxpy" list | grep -q saxpy-cpu

if [ "$cuda" = "ON" ]; then
  cmake -S "$src/examples/cpp_gemm" -B "$work/gemm" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_CUDA_ARCHITECTURES=90 >"$work/gemm.log" 2>&1 ||
    { cat "$work/gemm.log"; exit 1; }
  cmake --build "$work/gemm" -j 2 >>"$work/gemm.log" 2>&1 || { cat "$work/gemm.log"; exit 1; }
  "$work/gemm/cpp_gemm" list | grep -q naive-gemm
  rc=0
  "$work/gemm/cpp_gemm" --device cpu --no-history --out "$work/gemm-out" || rc=$?
  [ "$rc" -eq 2 ] || { echo "cpp_gemm --device cpu exited $rc, expected 2 (nothing to run without a GPU)"; exit 1; }
else
  echo "cpp_gemm: not built (assay was built without CUDA)"
fi
# The lazy engine's Python front end, from the prefix (where a Python with torch is found).
for py in python3 /usr/bin/python3; do
  if "$py" -c "import torch" >/dev/null 2>&1; then
    PYTHONPATH="$work/prefix/share/assay/python" "$py" -c '
import torch, assay_lazy
x = torch.ones(100, 100, device="remote_accelerator:0")
assert torch.relu(x @ x).sum().item() == 1e6
assert assay_lazy.lib_path.startswith("'"$work/prefix"'"), assay_lazy.lib_path'
    echo "assay_lazy: imported from the prefix with $py"
    break
  fi
done
echo "examples: installed, built against the package and run"
