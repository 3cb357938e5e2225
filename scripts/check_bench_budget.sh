#!/usr/bin/env bash
# Keeps the repository lean (issue 24, item 6). Budgets, in KiB as `du -k` counts them (4 KiB blocks):
#   bench/ on disk, every file and folder under it, nothing excluded:  3072 KiB (3 MiB)
#   the whole tracked tree (`git ls-files`, staged state):              6000 KiB (~6 MB)
# Both on disk, in blocks: a file costs at least one 4 KiB block, so many tiny files (test inputs)
# are packed into one (tests/hostile/suites.tar.xz).
# and no source forks under bench/ (files ending .cu .cuh .cpp .hpp .h .c .cc .patch .diff):
# kernels live in src/, experiments and their patches in git history (bench/ARCHIVE.md).
# Exit 0 with one summary line when all hold; exit 1 with one line per violation otherwise.
# Without git (an exported tree), only bench/ on disk is checked. Needs bash, coreutils, find.
#   bash scripts/check_bench_budget.sh        (from anywhere; it checks the tree it lives in)
set -u
BENCH_BUDGET_KIB=3072
TREE_BUDGET_KIB=6000

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
  tree_kib=$(git ls-files -z | xargs -0 -r du -k -- 2>/dev/null | awk '{s += $1} END {print s + 0}')
  tree_note="tracked tree ${tree_kib} KiB of ${TREE_BUDGET_KIB}"
  if [ "$tree_kib" -gt "$TREE_BUDGET_KIB" ]; then
    big=$(git ls-files -z | xargs -0 -r du -k -- 2>/dev/null | sort -rn | head -1 | cut -f2)
    say_fail "the tracked tree is ${tree_kib} KiB, over its budget of ${TREE_BUDGET_KIB} KiB (largest tracked file: ${big})"
  fi
fi

[ "$fail" -ne 0 ] && exit 1
echo "check_bench_budget: ok: bench/ ${bench_kib} KiB of ${BENCH_BUDGET_KIB}, no source forks; ${tree_note}"
