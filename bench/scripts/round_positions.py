#!/usr/bin/env python3
"""Per-round medians of a record measured in rounds (suite `rounds = 2`, order A B | B A): for each
session, point and backend, the median time and SM clock of each round and their ratio, then per
backend the geometric mean of round 2 / round 1 over the cases at or above --min-size. With two
backends a point runs A1 B1 B2 A2: a drift linear in time moves both ratios the same way (below 1
for both when the chip speeds up); A below 1 with B above 1 says the point's ends ran faster than
its middle.
Usage: round_positions.py RECORD_DIR [--min-size 3072]"""
import argparse, glob, json, lzma, math, os, statistics as st

ap = argparse.ArgumentParser()
ap.add_argument('dir')
ap.add_argument('--min-size', type=int, default=3072)
args = ap.parse_args()

def load(f):
    return json.load(lzma.open(f) if f.endswith('.xz') else open(f))

files = sorted(f for f in glob.glob(os.path.join(args.dir, '*.json*')) if 'sessions' not in os.path.basename(f))
if not files:
    raise SystemExit(f'{args.dir}: no results documents')
logs = {}
print('| session | dtype | size | backend | round 1 µs @ MHz | round 2 µs @ MHz | 2 / 1 |')
print('|---:|---|---:|---|---:|---:|---:|')
for si, f in enumerate(files, 1):
    for c in load(f)['cases']:
        m = c.get('measurement') or {}
        rs = m.get('round_samples', [])
        if len(rs) != 2:
            continue
        s, k = m['samples_ns'], m['sm_clock_mhz']
        r = [s[:rs[0]], s[rs[0]:]]
        # 0: a probe that saw no timer tick; the medians are of the clocks read.
        mhz = [st.median([x for x in part if x > 0] or [0]) for part in (k[:rs[0]], k[rs[0]:])]
        t = [st.median(x) / 1e3 for x in r]
        size = max(c['params'].values())
        print(f"| {si} | {c['dtype']} | {size} | {c['backend']} | {t[0]:.2f} @ {mhz[0]:.0f} | {t[1]:.2f} @ {mhz[1]:.0f} | {t[1] / t[0]:.4f} |")
        if size >= args.min_size:
            logs.setdefault(c['backend'], []).append(math.log(t[1] / t[0]))
print()
for b, v in logs.items():
    sd = st.stdev(v) / math.sqrt(len(v)) if len(v) > 1 else float('nan')
    print(f'{b}: round 2 / round 1 over {len(v)} cases from {args.min_size}: {math.exp(st.mean(v)):.4f} (± {sd:.4f} in log)')
