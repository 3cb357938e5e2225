#!/usr/bin/env bash
# tests/html.cmake: three CPU runs recorded in a fresh history, the last one edited to hold
# hostile text (a reason and a host name that try to end the data's <script> block) and a
# failed case without samples, a report of it against the first run with the history, and the
# page checked in headless Chromium (web/test/check_report.js). Exit 77 (skip) when the build's
# `npm ci` did not succeed.
# usage: report_in_chromium.sh ASSAY NODE CHROMIUM WEB_BUILD SOURCE_DIR OUT_DIR
set -euo pipefail
assay=$1 node=$2 chromium=$3 web=$4 src=$5 out=$6
if [ ! -f "$web/npm-ci.status" ] || [ ! -d "$web/node_modules/puppeteer-core" ]; then
  echo "SKIP: the build's npm ci did not succeed ($(cat "$web/npm-ci.status.failed" 2>/dev/null || echo 'no status')); assay report has no charting library"
  exit 77
fi
rm -rf "$out"
mkdir -p "$out/runs"
for i in 1 2 3; do
  "$assay" run "$src/tests/data/cpu_small.toml" --tag "html-$i" --out "$out/runs" --history "$out/history.db" >/dev/null 2>&1
done
mapfile -t docs < <(ls "$out"/runs/*.json | sort)
[ "${#docs[@]}" -eq 3 ] || { echo "FAIL: expected 3 results documents, got ${#docs[@]}"; exit 1; }
"$node" - "${docs[2]}" "$out/hostile.json" <<'JS'
const fs = require('fs');
const [src, dst] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(src, 'utf8'));
const evil = '</script><script>window.pwned=1</script><!--';
doc.run.host = 'host ' + evil;  // free text; suite names and ids are validated
doc.cases[0].reason = evil;
const failed = JSON.parse(JSON.stringify(doc.cases[1]));
failed.id += '/failed';
failed.status = 'check-failed';
failed.reason = 'check failed: planted by the html test ' + evil;
for (const k of ['measurement', 'summary_ns', 'derived', 'speedup_vs_baseline', 'baseline_median_ns', 'recheck']) failed[k] = null;
if (failed.check) failed.check.passed = false;
doc.cases.push(failed);
fs.writeFileSync(dst, JSON.stringify(doc));
JS
# A comparison's flag without --compare is bad input (exit 3, naming the flag), not ignored.
set +e
bad=$("$assay" report "$out/hostile.json" --also-cycles -o "$out/bad.html" 2>&1); rc=$?
set -e
[ "$rc" -eq 3 ] && [[ "$bad" == *"--also-cycles: only with --compare"* ]] && [ ! -e "$out/bad.html" ] ||
  { echo "FAIL: report --also-cycles without --compare: exit $rc, '$bad'"; exit 1; }
"$assay" report "$out/hostile.json" --compare "${docs[0]}" --also-cycles --history --history-db "$out/history.db" -o "$out/report-cpu.html"
NODE_PATH="$web/node_modules" "$node" "$src/web/test/check_report.js" "$chromium" "$out/report-cpu.html" "$out/report-cpu.png" \
  --times --distributions --compare --history "$out/hostile.json"

# 2500 compared cases (a sweep's size): the forest plot had grown to 66,000 px, past the canvas
# limit, and drew nothing; the time plots opened zoomed to a single case. check_report.js fails on
# a canvas past 32,767 px.
"$node" - "${docs[0]}" "$out/many.json" "$out/many-base.json" <<'JS'
const fs = require('fs');
const [src, dst, base] = process.argv.slice(2);
const doc = JSON.parse(fs.readFileSync(src, 'utf8'));
const ok = doc.cases.find((c) => c.status === 'ok' && c.measurement);
doc.cases = [];
ok.measurement.samples_ns = ok.measurement.samples_ns.slice(0, 5);  // a small page to draw
ok.summary_ns.n = 5;
for (let i = 1; i <= 2500; ++i) {
  const c = JSON.parse(JSON.stringify(ok));
  c.params = Object.assign({}, c.params, {k: i});
  c.id = c.id.replace(/k=\d+/, 'k=' + i);
  doc.cases.push(c);
}
fs.writeFileSync(dst, JSON.stringify(doc));
// The base: the same cases in another session (report, as compare, refuses one session on both sides).
doc.run.started_utc = '2026-01-01T00:00:00Z';
fs.writeFileSync(base, JSON.stringify(doc));
JS
"$assay" report "$out/many.json" --compare "$out/many-base.json" -o "$out/report-many.html"
NODE_PATH="$web/node_modules" "$node" "$src/web/test/check_report.js" "$chromium" "$out/report-many.html" "$out/report-many.png" \
  --times --compare "$out/many.json"
