#!/usr/bin/env bash
# Same-call A/B of assay binaries (one device call): $SUITE run by each binary in $VARIANTS (folders
# under build/strip, "." for the base; "DIR@VAR=VALUE" runs DIR's binary with that environment
# variable set), $ROUNDS rounds alternating; speedup vs the baseline, the median per case per run
# and the assay case's median SM clock printed last, the results as ab.tgz under $OUT.
OUT=${OUT:-/tmp/out}; SUITE=${SUITE:?name the suite to run}; ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT/ab"
variant_name() {
  local dir=${1%%@*} env=; [ "$dir" != "$1" ] && env=${1#*@}
  local name; name=$(echo "$dir${env:+-${env#*=}}" | tr -d ./); echo "${name:-base}"
}
# Two variants of one name would share a results folder (a folder named base and "." did once).
names=$(for v in $VARIANTS; do variant_name "$v"; done)
if [ "$(echo "$names" | sort | uniq -d)" != "" ]; then echo "variants with the same name: $names" >&2; exit 2; fi
for i in $(seq "$ROUNDS"); do for v in $VARIANTS; do
  dir=${v%%@*}; env=; [ "$dir" != "$v" ] && env=${v#*@}
  name=$(variant_name "$v")
  env $env "build/strip/$dir/assay" run "$SUITE" --out "$OUT/ab/$name-$i" --no-history > "$OUT/ab/$name-$i.txt" 2>&1 \
    || echo "$name-$i rc=$?"
done; done
python3 - "$OUT/ab" <<'PY'
import json, glob, sys, os
rows = {}
for f in sorted(glob.glob(sys.argv[1] + '/*/*.json')):
    run = os.path.basename(os.path.dirname(f))
    for c in json.load(open(f))['cases']:
        if c['backend'].startswith('assay') and c.get('speedup_vs_baseline'):
            key = (c["bench"], c["backend"], c["dtype"], ",".join("%s=%s" % kv for kv in sorted(c["params"].items())))
            clocks = sorted(x for x in (c.get('measurement') or {}).get('sm_clock_mhz', []) if x > 0)
            mhz = clocks[len(clocks) // 2] if clocks else 0
            rows.setdefault(key, {})[run] = (c['speedup_vs_baseline'], c['summary_ns']['median'] / 1e3, mhz)
runs = sorted({r for v in rows.values() for r in v}, key=lambda r: (r.rsplit('-', 1)[0], r))
print('speedup vs cublas (assay us @ its median SM MHz) per run:', ' '.join(runs))
for k in sorted(rows):
    print(*k, ' '.join('%.3f(%.1f@%.0f)' % rows[k][r] if r in rows[k] else '-' for r in runs))
PY
cd "$OUT" && tar czf ab.tgz ab && rm -rf ab
