#!/usr/bin/env bash
# Device call for a same-binary A/B of configurations: the GPU tests (TESTS=1, the default), then
# the suites ${1}a.toml, ${1}b.toml, ${1}a.toml (two backend orders alternating: the order bias
# under the power cap, bench/notes/gemm.md v6); every case's median and SM clock per run printed
# last (ab_table.py), the results as ab.tgz under $OUT. Binaries: build/carry/bins.tar.xz (stripped, see
# bench/BENCHMARKS.md), unpacked to build/strip.
#   bench/scripts/ab_orders.sh bench/results/h100/experiments-20261123-v9/c4
set -u
OUT=${OUT:-/tmp/out}
prefix=${1:?name the suites: path prefix of PREFIXa.toml and PREFIXb.toml}
mkdir -p build/strip "$OUT/ab" && tar xJf build/carry/bins.tar.xz -C build/strip
if [ "${TESTS:-1}" = 1 ]; then
  OUT=$OUT BIN=build/strip bash bench/scripts/gemm_hopper_device.sh ${TESTSTEPS:-tests clitests} > "$OUT/tests_summary.txt" 2>&1
fi
i=0
for s in a b a; do
  i=$((i + 1))
  timeout 280 build/strip/assay run "$prefix$s.toml" --out "$OUT/ab/$(basename "$prefix")$s-$i" --no-history \
    > "$OUT/ab/run-$s-$i.txt" 2>&1 || echo "run $s-$i rc=$?"
done
python3 "$(dirname "$0")/ab_table.py" "$OUT/ab" --by-time
cd "$OUT" && tar czf ab.tgz ab && rm -rf ab
tail -4 "$OUT/tests_summary.txt" 2>/dev/null
