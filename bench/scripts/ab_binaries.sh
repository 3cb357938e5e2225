#!/usr/bin/env bash
# Same-call A/B of assay binaries (one device call): $SUITE run by each binary in $VARIANTS (folders
# under build/strip, "." for the base), $ROUNDS rounds alternating; speedup vs the baseline and the
# median per case per run printed last, the results as ab.tgz under $OUT.
OUT=${OUT:-/tmp/out}; SUITE=${SUITE:?name the suite to run}; ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT/ab"
for i in $(seq "$ROUNDS"); do for v in $VARIANTS; do
  name=$(echo "$v" | tr -d ./); name=${name:-base}
  "build/strip/$v/assay" run "$SUITE" --out "$OUT/ab/$name-$i" --no-history > "$OUT/ab/$name-$i.txt" 2>&1 || echo "$name-$i rc=$?"
done; done
python3 - "$OUT/ab" <<'PY'
import json, glob, sys, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/*/*.json')):
    run = os.path.basename(os.path.dirname(f))
    for c in json.load(open(f))['cases']:
        if c['backend'].startswith('assay') and c.get('speedup_vs_baseline'):
            key = (c["bench"], c["backend"], c["dtype"], ",".join("%s=%s" % kv for kv in sorted(c["params"].items())))
            rows.setdefault(key, {})[run] = (c['speedup_vs_baseline'], c['summary_ns']['median'] / 1e3)
runs = sorted({r for v in rows.values() for r in v}, key=lambda r: (r.split('-')[0], r))
print('speedup vs cublas (assay us) per run:', ' '.join(runs))
for k in sorted(rows):
    print(*k, ' '.join('%.3f(%.1f)' % rows[k][r] if r in rows[k] else '-' for r in runs))
PY
cd "$OUT" && tar czf ab.tgz ab && rm -rf ab
