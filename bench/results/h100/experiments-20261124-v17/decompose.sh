#!/usr/bin/env bash
# v17: decompose.toml in cold and graph mode at gap 0 and 150 us, $REPS repetitions (the order of the
# four reversed in every other one); the gap_table of each run last, the runs as decompose.tgz.
OUT=${OUT:-/tmp/out}; B=${BIN:-build/strip}; E=bench/results/h100/experiments-20261124-v17; REPS=${REPS:-2}
mkdir -p "$OUT/d"
for i in $(seq "$REPS"); do
  order="cold-0 graph-0 cold-150 graph-150"; [ $((i % 2)) = 0 ] && order="graph-150 cold-150 graph-0 cold-0"
  for v in $order; do
    "$B/assay" run $E/decompose.toml --mode ${v%-*} --gap-us ${v#*-} --out "$OUT/d/$v-r$i" --no-history > "$OUT/d/$v-r$i.txt" 2>&1 || echo "$v-r$i rc=$?"
  done
done
grep -h "check-failed" "$OUT"/d/*.txt | sort | uniq -c
for r in "$OUT"/d/*/; do echo "$(basename $r)"; python3 bench/results/h100/experiments-20261124-v16/gap_table.py "$r" | tail -n +3; done | tee "$OUT/decompose.md"
cd "$OUT" && tar czf decompose.tgz d && rm -rf d
