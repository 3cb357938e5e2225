#!/usr/bin/env bash
# Order-bias check: assay-first and cuBLAS-first runs of the same points, alternated.
BIN=${BIN:-build/strip}; OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/order"
for i in 1 2; do for o in af cf; do
  "$BIN/assay" run exp/order-$o.toml --out "$OUT/order/$o-$i" --no-history > "$OUT/order/$o-$i.txt" 2>&1
done; done
python3 - "$OUT/order" <<'PY'
import json, glob, sys, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/*/*.json')):
    run = os.path.basename(os.path.dirname(f))
    for c in json.load(open(f))['cases']:
        if c['backend'] == 'assay' and c.get('speedup_vs_baseline'):
            key = (c['dtype'], c['params']['m'])
            rows.setdefault(key, {})[run] = (c['speedup_vs_baseline'], c['summary_ns']['median'] / 1e3,
                                              c['baseline_median_ns'] / 1e3)
runs = sorted({r for v in rows.values() for r in v})
print('order: speedup (assay us / cublas us) per run:', ' '.join(runs))
for k in sorted(rows):
    print(k, ' '.join('%.3f(%.1f/%.1f)' % rows[k][r] if r in rows[k] else '-' for r in runs))
PY
