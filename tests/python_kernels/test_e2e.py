#!/usr/bin/env python3
"""End to end: planted Python callables (planted_kernels.py) as py:MODULE:FUNCTION backends of a
tiny suite, run by `assay run --device cpu`; each broken one must end with the right status.
Skips (exit 77) without torch or without an assay binary.

  python3 tests/python_kernels/test_e2e.py [ASSAY_BINARY]     (default $ASSAY_BIN, build/current/bin/assay)
"""
import json
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import support

M = "py:planted_kernels:"
# backend -> (status, reason regex)
EXPECT = {
    "torch": ("ok", r"^$"),
    M + "correct": ("ok", r"^$"),
    M + "edge_wrong": ("check-failed", r"fails="),
    M + "raises": ("error", r"py:planted_kernels:raises raised ValueError: planted failure for head size 16"),
    M + "wrong_shape": ("error", r"returned shape \[1, 2, 32, 16\] f32 on cpu; expected \[1, 2, 33, 16\] f32 on cpu"),
    M + "flaky": ("error", r"flaky is not deterministic"),
    M + "infinite": ("check-failed", r"fails="),  # equal infinities agree: wrong, not flaky
    M + "caching": ("check-failed", r"fails="),  # the recheck on fresh inputs
    M + "partial_out": ("check-failed", r"fails="),
    M + "segfaults": ("error", r"signal 11"),  # the adapter died; the suite went on
    M + "lazy": ("implausible", r"below the physical floor"),  # bench "floor"
}
FLOOR_BENCH = {"torch", M + "lazy"}

SUITE = """[suite]
name = "python-kernels-e2e"
python_path = [%s]

[defaults.measure]
warmup_calls = 1
warmup_min_s = 0.0
min_samples = 5
max_samples = 30
min_time_s = 0.0
target_rel_ci = 0.5
timeout_s = 1
adapter_timeout_s = 120

[defaults.check]
atol = 0.0005
rtol = 0.001
recheck = true

[[bench]]
name = "planted"
workload = "attention"
backends = [%s]
baseline = "torch"
dtype = "f32"
[bench.axes]
b = 1
h = 2
s = 33
d = 16
causal = 1

# Large enough that its FLOPs take a CPU longer than a call that computes nothing (the floor:
# every hardware thread at 5 GHz x 64 FLOP per clock); checked at a small shape.
[[bench]]
name = "floor"
workload = "attention"
backends = [%s]
baseline = "torch"
dtype = "f32"
[bench.check]
shape = { h = 2, s = 33 }
[bench.axes]
b = 1
h = 8
s = 1024
d = 64
causal = 0
"""


def main():
    assay = support.find_assay(sys.argv)
    if assay is None:
        print("SKIP: no assay binary (pass it as the argument, set ASSAY_BIN, or build build/current)")
        return support.SKIP
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="assay-pykernels-e2e-")
    try:
        suite = os.path.join(tmp, "suite.toml")
        with open(suite, "w") as f:
            f.write(SUITE % (json.dumps(support.HERE), ", ".join(json.dumps(b) for b in EXPECT if b != M + "lazy"),
                             ", ".join(json.dumps(b) for b in sorted(FLOOR_BENCH))))
        out = os.path.join(tmp, "out")
        cmd = [assay, "run", suite, "--device", "cpu", "--out", out, "--no-history", "--no-doctor"]
        p = subprocess.run(cmd, capture_output=True, text=True, env=support.assay_env(), timeout=300)
        files = glob.glob(os.path.join(out, "*.json"))
        if not files:
            print("FAIL: assay exited %d without a results file\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout, p.stderr))
            return 1
        doc = json.load(open(files[0]))
        failures = []
        by_backend = {c["backend"]: c for c in doc["cases"]}
        for backend, (status, reason) in EXPECT.items():
            c = by_backend.get(backend)
            if c is None:
                failures.append("%s: no case in the results" % backend)
                continue
            ok = c["status"] == status and re.search(reason, c.get("reason", "")) is not None
            print("%-4s %-34s %-13s %s" % ("ok" if ok else "FAIL", backend, c["status"], c.get("reason", "")[:150]))
            if not ok:
                failures.append("%s: expected %s matching %r, got %s: %s" % (backend, status, reason, c["status"], c.get("reason")))
        c = by_backend.get(M + "correct", {})
        adapter = c.get("adapter") or {}
        if c.get("status") == "ok" and adapter.get("versions", {}).get("python.callable") != "planted_kernels:correct":
            failures.append("correct: versions lack python.callable: %s" % adapter.get("versions"))
        if p.returncode != 1:  # check-failed cases: exit 1
            failures.append("assay exited %d, expected 1 (check-failed cases)" % p.returncode)
        print("%.1f s" % (time.time() - t0))
        if failures:
            print("FAILED:\n  " + "\n  ".join(failures))
            print("assay stderr tail:\n" + p.stderr[-3000:])
            return 1
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
