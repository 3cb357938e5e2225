#!/usr/bin/env python3
"""Each round of each case: its kept samples, median SM MHz and median µs, per results folder
(the warm-up experiment of v16: does a short round keep the boost clock?). Usage: rounds_table.py DIR..."""
import glob, json, lzma, os, statistics as st, sys
print('| run | case | samples per round | MHz per round | µs per round | speedup |')
print('|---|---|---|---|---|---|')
for d in sys.argv[1:]:
    for f in sorted(f for f in glob.glob(os.path.join(d, '*.json*')) if 'sessions' not in os.path.basename(f)):
        doc = json.load(lzma.open(f) if f.endswith('.xz') else open(f))
        for c in doc['cases']:
            if c['status'] != 'ok': continue
            m = c['measurement']; rs = m.get('round_samples') or [len(m['samples_ns'])]
            cuts = [sum(rs[:i]) for i in range(len(rs) + 1)]
            part = lambda v, i: v[cuts[i]:cuts[i + 1]]
            mhz = ' / '.join('%.0f' % st.median(part(m['sm_clock_mhz'], i)) for i in range(len(rs)))
            us = ' / '.join('%.1f' % (st.median(part(m['samples_ns'], i)) / 1e3) for i in range(len(rs)))
            sp = c.get('speedup_vs_baseline')
            print(f"| {os.path.basename(d)} | {c['id'].split(',')[0]} | {' / '.join(map(str, rs))} | {mhz} | {us} | {'%.3f' % sp if sp else ''} |")
