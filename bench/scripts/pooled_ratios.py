#!/usr/bin/env python3
"""The per-session ratio (cuBLAS median / assay median) of each gemm-hopper point over one or more
records (their session documents, `*.json` or `*.json.xz`), and the ratio pooled over all those
sessions: the geometric mean ± its standard error, and how many sessions fell below 1.00. Made for
the gemm-hopper records: backends `assay` and `cublas`, one case per (dtype, m) in a session.
Usage: pooled_ratios.py RECORD_DIR [RECORD_DIR ...]"""
import glob, json, lzma, math, os, statistics as st, sys

if len(sys.argv) < 2:
    raise SystemExit(__doc__)
ratios = {}
for rec in sys.argv[1:]:
    files = sorted(f for f in glob.glob(os.path.join(rec, '*.json*')) if 'sessions' not in os.path.basename(f))
    if not files:
        raise SystemExit(f'{rec}: no session documents')
    for f in files:
        doc = json.load(lzma.open(f) if f.endswith('.xz') else open(f))
        med = {}
        for c in doc['cases']:
            if c['status'] == 'ok':
                med[(c['dtype'], c['params']['m'], c['backend'])] = c['summary_ns']['median']
        for (dtype, m, backend), v in med.items():
            if backend == 'assay' and (dtype, m, 'cublas') in med:
                ratios.setdefault((dtype, m), []).append(med[(dtype, m, 'cublas')] / v)
print('| dtype | m=n=k | sessions | pooled | ± | below 1.00 | per session |')
print('|---|---:|---:|---:|---:|---:|---|')
for (dtype, m), v in sorted(ratios.items()):
    logs = [math.log(x) for x in v]
    se = st.stdev(logs) / math.sqrt(len(logs)) if len(logs) > 1 else float('nan')
    print(f"| {dtype} | {m} | {len(v)} | {math.exp(st.mean(logs)):.4f} | {se:.4f} | {sum(x < 1 for x in v)} | "
          f"{' '.join('%.3f' % x for x in v)} |")
