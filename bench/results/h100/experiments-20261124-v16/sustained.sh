#!/usr/bin/env bash
# v16 device call: two sessions of sustained.toml (graph mode, back to back), then the table.
set -u
OUT=${OUT:-/tmp/out}; BIN=${BIN:-build/strip}; D=bench/results/h100/experiments-20261124-v16
mkdir -p "$OUT/sustained"
timeout 330 "$BIN/assay" run "$D/sustained.toml" --repeat 2 --out "$OUT/sustained" --no-history > "$OUT/sustained/log.txt" 2>&1
echo "sustained x2 rc=$?"
python3 "$D/gap_table.py" "$OUT"/sustained/*-x2 > "$OUT/sustained/table.md"
tar cJf "$OUT/sustained.tar.xz" -C "$OUT" sustained && cat "$OUT/sustained/table.md"
