#!/usr/bin/env bash
# v17 device call 1: (a) the gap's two effects apart (decompose.toml: cold and graph mode, gap 0 and
# 150 us, interleaved); (b) the gap's overruns with NVML's telemetry thread as it is (20 ms), polling
# every 1 s, without the process list, or off (ASSAY_EXP_TELEMETRY, a scratch knob: telemetry-knob.patch).
OUT=${OUT:-/tmp/out}; B=build/strip; E=bench/results/h100/experiments-20261124-v17
mkdir -p "$OUT/d" "$OUT/t"
for v in cold-0 graph-0 cold-150 graph-150; do
  "$B/assay" run $E/decompose.toml --mode ${v%-*} --gap-us ${v#*-} --out "$OUT/d/$v" --no-history > "$OUT/d/$v.txt" 2>&1 || echo "$v rc=$?"
done
for i in 1 2; do for t in base off noprocs slow; do
  ASSAY_EXP_TELEMETRY=$t "$B/assay" run bench/results/h100/experiments-20261124-v16/overrun.toml --out "$OUT/t/$t-$i" --no-history > "$OUT/t/$t-$i.txt" 2>&1 || echo "$t-$i rc=$?"
done; done
T=bench/results/h100/experiments-20261124-v16/gap_table.py
python3 $T "$OUT"/d/*/ > "$OUT/decompose.md"; python3 $T "$OUT"/t/*/ > "$OUT/telemetry.md"
grep -h "check-failed" "$OUT"/d/*.txt "$OUT"/t/*.txt | sort | uniq -c
cat "$OUT/decompose.md" "$OUT/telemetry.md"
cd "$OUT" && tar czf runs.tgz d t && rm -rf d t
