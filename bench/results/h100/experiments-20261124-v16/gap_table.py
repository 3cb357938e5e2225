#!/usr/bin/env python3
"""Per run and point of the gap experiment: speedup (cuBLAS median / assay's), each backend's median
us @ median SM MHz, its wall time per sample (elapsed / samples: the duty cycle's period) and its
gap overruns. Usage: gap_table.py RESULTS_DIR... (each one `assay run` output folder)."""
import glob, json, lzma, os, statistics as st, sys
print('| run | point | speedup | assay us@MHz, wall/sample, overruns | cuBLAS us@MHz, wall/sample, overruns |')
print('|---|---|---|---|---|')
for d in sys.argv[1:]:
    files = sorted(f for f in glob.glob(os.path.join(d, '*.json*')) if 'sessions' not in os.path.basename(f))
    for f in files:
        label = os.path.basename(os.path.normpath(d)) if len(files) == 1 else os.path.basename(f).split('.')[0][-16:]
        doc = json.load(lzma.open(f) if f.endswith('.xz') else open(f))
        by = {}
        for c in doc['cases']:
            if c['status'] != 'ok': continue
            m = c['measurement']
            by.setdefault((c['dtype'], c['params']['m']), {})[c['backend']] = (
                c['summary_ns']['median'] / 1e3, st.median(m['sm_clock_mhz']) if m['sm_clock_mhz'] else 0,
                m['elapsed_s'] / max(1, len(m['samples_ns'])) * 1e6, m.get('gap_overruns', '-'), len(m['samples_ns']))
        for (dt, n), b in sorted(by.items()):
            if 'assay' not in b or 'cublas' not in b: continue
            a, c = b['assay'], b['cublas']
            fmt = lambda x: f'{x[0]:.2f}@{x[1]:.0f}, {x[2]:.0f} us, {x[3]} of {x[4]}'
            print(f'| {label} | {dt} {n}³ | {c[0] / a[0]:.3f} | {fmt(a)} | {fmt(c)} |')
