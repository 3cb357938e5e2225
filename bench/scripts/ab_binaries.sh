#!/usr/bin/env bash
# Same-call A/B of assay binaries (one device call): $SUITE run by each binary in $VARIANTS (folders
# under build/strip, "." for the base; "DIR@VAR=VALUE" runs DIR's binary with that environment
# variable set), $ROUNDS rounds alternating; the assay cases' speedup, median and median SM clock
# per run printed last (ab_table.py), the results as ab.tgz under $OUT.
OUT=${OUT:-/tmp/out}; SUITE=${SUITE:?name the suite to run}; ROUNDS=${ROUNDS:-3}
mkdir -p "$OUT/ab"
# A variant's parts: its binary's folder, its environment setting (if any) and its results name.
split_variant() {
  dir=${1%%@*} env=; [ "$dir" != "$1" ] && env=${1#*@}
  name=$(echo "$dir${env:+-${env#*=}}" | tr -d ./); name=${name:-base}
}
# Two variants of one name would share a results folder (a folder named base and "." did once).
names=$(for v in $VARIANTS; do split_variant "$v"; echo "$name"; done)
if [ "$(echo "$names" | sort | uniq -d)" != "" ]; then echo "variants with the same name: $names" >&2; exit 2; fi
for i in $(seq "$ROUNDS"); do for v in $VARIANTS; do
  split_variant "$v"
  env $env "build/strip/$dir/assay" run "$SUITE" --out "$OUT/ab/$name-$i" --no-history > "$OUT/ab/$name-$i.txt" 2>&1 \
    || echo "$name-$i rc=$?"
done; done
python3 "$(dirname "$0")/ab_table.py" "$OUT/ab" --backend assay
cd "$OUT" && tar czf ab.tgz ab && rm -rf ab
