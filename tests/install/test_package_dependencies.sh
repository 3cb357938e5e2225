#!/usr/bin/env bash
# The installed CMake package finds what its exported targets link: SQLite and liblzma are linked
# static where their archives exist (a path in the targets) and shared otherwise (the imported
# targets SQLite::SQLite3 and LibLZMA::LibLZMA, whose packages assayConfig.cmake must then find
# with find_dependency). Configures the project twice (no build): as found, and with
# ASSAY_SHARED_THIRD_PARTY=ON; checks the generated config's dependency list against the
# configure log. Usage: test_package_dependencies.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d /tmp/assay-package-deps-XXXXXX)
trap 'rm -rf "$work"' EXIT

check() {  # check NAME CMAKE_ARGS...: every library the log says is shared is a listed dependency, no other
  local name=$1
  shift
  cmake -S "$src" -B "$work/$name" -DASSAY_WITH_CUDA=OFF -DASSAY_BUILD_TESTS=OFF "$@" >"$work/$name.log" 2>&1 ||
    { cat "$work/$name.log"; exit 1; }
  local items
  items=$(sed -n 's/^foreach(assay_dependency IN ITEMS \(.*\))$/\1/p' "$work/$name/package/assayConfig.cmake")
  for pair in SQLITE3:SQLite3 LZMA:LibLZMA; do
    local label=${pair%%:*} package=${pair##*:}
    if grep -q "assay: $label shared" "$work/$name.log"; then
      [[ ";$items;" == *";$package;"* ]] || { echo "$name: $label linked shared but '$package' not in the config's dependencies ($items)"; exit 1; }
    elif grep -q "assay: $label static" "$work/$name.log"; then
      [[ ";$items;" != *";$package;"* ]] || { echo "$name: $label linked static but '$package' is a dependency ($items)"; exit 1; }
    else
      echo "$name: the configure log says nothing of $label"; exit 1
    fi
  done
  echo "$name: dependencies [${items}]"
}
check as-found
check shared -DASSAY_SHARED_THIRD_PARTY=ON
grep -q "assay: SQLITE3 shared" "$work/shared.log" && grep -q "assay: LZMA shared" "$work/shared.log" ||
  { echo "ASSAY_SHARED_THIRD_PARTY=ON left a library static"; exit 1; }
