#!/usr/bin/env python3
"""The table an A/B device call prints last (ab_binaries.sh, ab_orders.sh): for each case of the
results documents under DIR/<run>/, one cell per run, `speedup(µs@MHz)` for a case with a baseline
(`µs@MHz` without one), µs the case's median and MHz its samples' median SM clock (clock probe; 0
when none), then the kernel the case ran (its variant, from the last run). Runs are ordered by
name or, with --by-time, by when their document was written; only backends starting with --backend
(default: all)."""
import argparse, glob, json, os

ap = argparse.ArgumentParser()
ap.add_argument('dir')
ap.add_argument('--by-time', action='store_true')
ap.add_argument('--backend', default='')
args = ap.parse_args()

rows, runs, variants = {}, [], {}
files = glob.glob(os.path.join(args.dir, '*', '*.json'))
for f in sorted(files, key=os.path.getmtime if args.by_time else (lambda f: (f.rsplit('-', 1)[0], f))):
    run = os.path.basename(os.path.dirname(f))
    if run not in runs:
        runs.append(run)
    for c in json.load(open(f))['cases']:
        if not c['backend'].startswith(args.backend):
            continue
        key = (c['bench'], c['backend'], c['dtype'], ','.join('%s=%s' % kv for kv in sorted(c['params'].items())))
        clocks = sorted(x for x in (c.get('measurement') or {}).get('sm_clock_mhz', []) if x > 0)
        mhz = clocks[len(clocks) // 2] if clocks else 0
        us = c['summary_ns']['median'] / 1e3 if c.get('summary_ns') else float('nan')
        cell = '%.1f@%.0f' % (us, mhz)
        if c.get('speedup_vs_baseline'):
            cell = '%.3f(%s)' % (c['speedup_vs_baseline'], cell)
        if c.get('status') not in (None, 'ok'):
            cell += '!' + str(c['status'])
        rows.setdefault(key, {})[run] = cell
        variants[key] = c.get('variant', '')
print('per run:', ' '.join(runs))
for k in sorted(rows):
    print(*k, ' '.join(rows[k].get(r, '-') for r in runs), variants[k][:40])
