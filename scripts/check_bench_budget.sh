#!/usr/bin/env bash
# Keeps the repository lean (issue 24, item 6). Budgets:
#   bench/ on disk, every file and folder under it, nothing excluded:  3072 KiB (3 MiB) as `du -k`
#     counts them (4 KiB blocks: a record of many tiny files costs its blocks; they are packed into
#     one archive instead, as gate/verdicts.tar.xz)
#   the whole tracked tree (`git ls-files`, staged state):              6 MB (6,000,000 bytes), the
#     files' sizes: what a clone carries. Not blocks: those charge a 1 KiB source file 4 KiB, and
#     the tree's many small files (one job each) paid about 1.1 MB of rounding for nothing.
# and no source forks under bench/ (files ending .cu .cuh .cpp .hpp .h .c .cc .patch .diff):
# kernels live in src/, experiments and their patches in git history (bench/ARCHIVE.md).
# Exit 0 with one summary line when all hold; exit 1 with one line per violation otherwise.
# Without git (an exported tree), only bench/ on disk is checked. Needs bash, coreutils, find.
#   bash scripts/check_bench_budget.sh        (from anywhere; it checks the tree it lives in)
set -u
BENCH_BUDGET_KIB=3072
TREE_BUDGET_BYTES=6000000

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) || { echo "check_bench_budget: FAIL: cannot find the repository root" >&2; exit 1; }
cd "$root" || exit 1
fail=0
say_fail() { echo "check_bench_budget: FAIL: $*" >&2; fail=1; }

if [ ! -d bench ]; then
  say_fail "no bench/ folder in $root"
  exit 1
fi

bench_kib=$(du -sk bench | cut -f1)
if [ "$bench_kib" -gt "$BENCH_BUDGET_KIB" ]; then
  biggest=$(find bench -type f -exec du -k {} + | sort -rn | head -1 | cut -f2)
  say_fail "bench/ is ${bench_kib} KiB on disk, over its budget of ${BENCH_BUDGET_KIB} KiB (largest file: ${biggest})"
fi

forks=$(find bench -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \
  -o -name '*.c' -o -name '*.cc' -o -name '*.patch' -o -name '*.diff' \) | sort)
if [ -n "$forks" ]; then
  n=$(printf '%s\n' "$forks" | wc -l)
  first=$(printf '%s\n' "$forks" | head -1)
  more=""; [ "$n" -gt 1 ] && more=" (and $((n - 1)) more)"
  say_fail "bench/ holds a source fork or patch: ${first}${more}; keep kernels in src/ and experiments in git history"
fi

tree_note="git absent: tracked tree not checked"
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # Sum per file (files deleted on disk but still in the index count as 0).
  tree_bytes=$(git ls-files -z | xargs -0 -r du -b -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
  tree_note="tracked tree ${tree_bytes} bytes of ${TREE_BUDGET_BYTES}"
  if [ "$tree_bytes" -gt "$TREE_BUDGET_BYTES" ]; then
    big=$(git ls-files -z | xargs -0 -r du -b -- 2>/dev/null | sort -rn | head -1 | cut -f2)
    say_fail "the tracked tree is ${tree_bytes} bytes, over its budget of ${TREE_BUDGET_BYTES} (largest tracked file: ${big})"
  fi
fi

[ "$fail" -ne 0 ] && exit 1
echo "check_bench_budget: ok: bench/ ${bench_kib} KiB of ${BENCH_BUDGET_KIB}, no source forks; ${tree_note}"
