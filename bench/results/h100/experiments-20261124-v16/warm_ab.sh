#!/usr/bin/env bash
# v16 device call: warm005 / warm05 alternating (two pairs), then each round's samples and clock.
set -u
OUT=${OUT:-/tmp/out}; BIN=${BIN:-build/strip}; D=bench/results/h100/experiments-20261124-v16
mkdir -p "$OUT/warm"
i=0
for w in 005 05 05 005; do
  i=$((i+1))
  timeout 150 "$BIN/assay" run "$D/warm$w.toml" --out "$OUT/warm/run$i-warm$w" --no-history > "$OUT/warm/run$i-warm$w.log" 2>&1
  echo "run$i warm$w rc=$?"
done
python3 "$D/rounds_table.py" "$OUT"/warm/run* > "$OUT/warm/rounds.md"
tar cJf "$OUT/warm.tar.xz" -C "$OUT" warm && cat "$OUT/warm/rounds.md"
