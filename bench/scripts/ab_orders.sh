#!/usr/bin/env bash
# Device call for a same-binary A/B of configurations: the GPU tests (TESTS=1, the default), then
# the suites ${1}a.toml, ${1}b.toml, ${1}a.toml (two backend orders alternating: the order bias
# under the power cap, bench/notes/gemm.md v6); the median µs per case and run printed last,
# the results as ab.tgz under $OUT. Binaries: build/carry/bins.tar.xz (stripped, see
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
python3 - "$OUT/ab" <<'PY'
import json, glob, sys, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/*/*.json'), key=os.path.getmtime):
    for c in json.load(open(f))['cases']:
        key = (c["dtype"], c["params"]["m"], c["backend"])
        v = c['summary_ns']['median'] / 1e3 if c.get('summary_ns') else float('nan')
        rows.setdefault(key, []).append('%.1f%s' % (v, '' if c.get('status') in (None, 'ok') else '!' + str(c.get('status'))))
        rows[key + ('v',)] = c.get('variant', '')
for k in sorted(x for x in rows if len(x) == 3):
    print(*k, ' '.join(rows[k]), rows[k + ('v',)][:40])
PY
cd "$OUT" && tar czf ab.tgz ab && rm -rf ab
tail -4 "$OUT/tests_summary.txt" 2>/dev/null
