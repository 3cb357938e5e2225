#!/usr/bin/env python3
"""Where a kernel's warps stall, per SASS instruction, from an Nsight Compute source page.

Input: the CSV of `ncu --import R.ncu-rep --page source --print-source sass --csv` for a report
taken with `--section SourceCounters`. Prints the stall reasons over all samples, the share of
the samples per opcode with its largest reasons (the per-opcode tables of the GEMM notebook, v5b-v6,
in git history: bench/ARCHIVE.md), then every instruction holding at least THRESHOLD of the
samples, with its top three reasons.
Usage: sass_stalls.py PAGE.csv [THRESHOLD=0.005]
"""
import csv
import sys


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    threshold = float(sys.argv[2]) if len(sys.argv) > 2 else 0.005
    try:
        with open(sys.argv[1], newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        print(f"{sys.argv[1]}: {e.strerror}", file=sys.stderr)
        return 1
    header = next((r for r in rows if "Address" in r and "Source" in r), None)
    if header is None:
        print(f"{sys.argv[1]}: no source-page header (Address, Source) found", file=sys.stderr)
        return 1
    data = rows[rows.index(header) + 1:]
    samples_col = header.index("Warp Stall Sampling (All Samples)")
    executed_col = header.index("Instructions Executed")
    source_col = header.index("Source")
    reasons = [(i, h) for i, h in enumerate(header) if h.startswith("stall_") and "Not Issued" not in h]

    def num(r, i):
        return int(r[i] or 0) if i < len(r) and r[i].strip().isdigit() else 0

    total = sum(num(r, samples_col) for r in data) or 1
    executed = sum(num(r, executed_col) for r in data)
    print(f"{sys.argv[1]}: {total} samples, {executed} warp instructions executed")
    sums = {h: sum(num(r, i) for r in data) for i, h in reasons}
    print(" ".join(f"{h[6:]}={v / total:.3f}" for h, v in sorted(sums.items(), key=lambda x: -x[1]) if v / total > 0.005))
    # Per opcode (the mnemonic without its predicate and modifiers): the share of all samples
    # and its four largest reasons, for comparing kernels whose instruction addresses differ.
    by_op = {}
    for r in data:
        words = r[source_col].split()
        if words and words[0].startswith("@"):
            words = words[1:]
        op = words[0].split(".")[0] if words else "?"
        acc = by_op.setdefault(op, {"": 0})
        acc[""] += num(r, samples_col)
        for i, h in reasons:
            acc[h] = acc.get(h, 0) + num(r, i)
    for op, acc in sorted(by_op.items(), key=lambda x: -x[1][""])[:12]:
        top = sorted(((v, h[6:]) for h, v in acc.items() if h), reverse=True)[:4]
        print(f"  {op:20s} {acc[''] / total:6.3f}  " + " ".join(f"{h}={v / total:.3f}" for v, h in top))
    for n, r in enumerate(data):
        s = num(r, samples_col)
        if s / total >= threshold:
            top = sorted(((num(r, i), h[6:]) for i, h in reasons), reverse=True)[:3]
            print(f"{n:5d} {s / total:6.3f} exe={num(r, executed_col):>9} {r[source_col].strip()[:60]:60s} {top}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
