#!/usr/bin/env bash
# Device call: the GPU tests (if TESTS=1), then suite exp/$1{a,b,a}.toml (backend orders alternating);
# a table of median µs per case and run last.
set -u
mkdir -p build/strip && tar xJf build/carry/bins.tar.xz -C build/strip
if [ "${TESTS:-1}" = 1 ]; then
  OUT=$OUT BIN=build/strip bash bench/scripts/gemm_hopper_device.sh ${TESTSTEPS:-tests clitests} > $OUT/tests_summary.txt 2>&1
fi
mkdir -p $OUT/ab
i=0
for s in a b a; do
  i=$((i+1))
  timeout 250 build/strip/assay run exp/$1$s.toml --out $OUT/ab/$1$s-$i --no-history > $OUT/ab/run-$s-$i.txt 2>&1 || echo "run $s rc=$?"
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
    print(*k, ' '.join(rows[k]), rows[k + ('v',)][:34])
PY
cd $OUT && tar czf ab.tgz ab && rm -rf ab
tail -4 $OUT/tests_summary.txt 2>/dev/null
