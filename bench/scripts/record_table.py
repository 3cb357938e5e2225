#!/usr/bin/env python3
"""The bench/README.md table of a gemm-hopper.toml record: one row per point with both sides'
median of session medians, the speedup (cuBLAS / assay), TFLOP/s, the median SM clocks and the
kernel assay picked. Reads the record folder as assay wrote it (plain or .xz JSON).

    bench/scripts/record_table.py bench/results/h100/gemm-hopper/v17a-x3
"""
import glob
import json
import lzma
import os
import sys


def load(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def main(folder):
    found = [p for p in (os.path.join(folder, "sessions.json"), os.path.join(folder, "sessions.json.xz")) if os.path.exists(p)]
    if not found:
        sys.exit(f"{folder}: no sessions.json(.xz): not the folder of an `assay run --repeat` record")
    sessions = load(found[0])
    med = {c["id"]: c for c in sessions["cases"]}
    first = load(sorted(glob.glob(os.path.join(folder, "gemm-hopper-*.json*")))[0])
    kernel = {c["id"]: (c.get("variant") or "").replace("_persistent", "") for c in first["cases"]}
    print("| dtype | m=n=k | assay µs | cuBLAS µs | speedup | assay TFLOP/s | cuBLAS TFLOP/s | SM MHz assay / cuBLAS | assay kernel |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for bench, dtypes, sizes in (("gemm16", ("f16", "bf16"), (1024, 2048, 3072, 4096, 8192)),
                                 ("gemm8", ("f8e4m3",), (2048, 4096, 8192))):
        for dt in dtypes:
            for m in sizes:
                point = f"{dt}/k={m},m={m},n={m}"
                a, b = med[f"{bench}/assay/{point}"], med[f"{bench}/cublas/{point}"]
                ta, tb, flops = a["median_of_medians_ns"], b["median_of_medians_ns"], 2 * m**3
                print(f"| {dt} | {m} | {ta / 1e3:.2f} | {tb / 1e3:.2f} | {tb / ta:.3f}× | {flops / ta / 1e3:.0f} | "
                      f"{flops / tb / 1e3:.0f} | {a['median_sm_clock_mhz']:.0f} / {b['median_sm_clock_mhz']:.0f} | "
                      f"{kernel[f'{bench}/assay/{point}']} |")


if __name__ == "__main__":
    main(sys.argv[1])
