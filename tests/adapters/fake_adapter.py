#!/usr/bin/env python3
"""A fake adapter for assay's CPU tests: speaks the protocol of docs/adapters.md for the gemm
workload in f32, well or badly on purpose. Usage: fake_adapter.py BEHAVIOUR
  ok          computes C = A*B, writes it, replies with samples
  wrong       writes a wrong C (every element + 1)
  nowrite     replies ok but never writes C
  wrongsize   writes C with one element missing
  garbage     prints text that is not JSON
  nothing     prints nothing
  several     prints two JSON objects
  exit3       replies ok, then exits with code 3
  crash       dies without a reply (exit 7, a message on stderr)
  hang        sleeps forever
  flood       prints far more than assay accepts on stdout
  unavailable replies status unavailable
  error       replies status error
  nosamples   replies ok to a measuring call with no samples
  fast        replies samples of 1e-9 ms (impossible speed)
  toomany     replies 50,000 samples
  huge        replies a sample of 1e300 ms
  slow        sleeps 0.15 s, then replies ok
  utf8crash   dies with 10 kB of two-byte UTF-8 characters on stderr
  detach PIDFILE  starts `sleep 30` (its pid into PIDFILE), then replies ok
  daemon PIDFILE  the same, the child in a session of its own (setsid: out of the adapter's group)
$FAKE_ADAPTER_SCALE, when set, multiplies the samples it replies (a knob for `assay tune`'s
environment variants: a variant with 0.5 is exactly twice as fast).
"""
import os
import array
import json
import sys
import time

behaviour = sys.argv[1]
if behaviour in ("detach", "daemon"):  # leaves a child running after a good reply: it must not outlive the case
    import subprocess
    child = subprocess.Popen(["sleep", "30"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=behaviour == "daemon")
    with open(sys.argv[2], "w") as f:
        f.write(str(child.pid))
    behaviour = "ok"
case = json.load(sys.stdin)
if behaviour == "slow":  # a well-behaved adapter that takes a while: a target for the fault tests
    time.sleep(0.15)
    behaviour = "ok"


def reply(obj):
    print(json.dumps(obj))
    sys.stdout.flush()


if behaviour == "garbage":
    print("Traceback (most recent call last): this is not JSON")
    sys.exit(0)
if behaviour == "nothing":
    sys.exit(0)
if behaviour == "hang":
    while True:
        time.sleep(1)
if behaviour == "flood":
    chunk = "x" * 65536
    while True:
        sys.stdout.write(chunk)
if behaviour == "utf8crash":  # UTF-8 on stderr, cut by assay's tail at a byte inside a character
    sys.stderr.write("x" + "\u00e9" * 5000 + "\n")
    sys.exit(7)
if behaviour == "crash":
    sys.stderr.write("fake adapter: segmentation fault (pretend)\n\n  in frame 0\n")
    sys.exit(7)
if behaviour == "unavailable":
    reply({"status": "unavailable", "message": "fake stack is not installed"})
    sys.exit(0)
if behaviour == "error":
    reply({"status": "error", "message": "fake failure while compiling"})
    sys.exit(0)

assert case["protocol"] == "assay.adapter/1" and case["workload"] == "gemm" and case["dtype"] == "f32"
# purpose "profile" (assay profile) carries the number of calls to make inside the window.
assert case["purpose"] != "profile" or case["profile"]["calls"] >= 1
m, n, k = case["params"]["m"], case["params"]["n"], case["params"]["k"]
a = array.array("f")
b = array.array("f")
with open(case["inputs"][0]["path"], "rb") as f:
    a.frombytes(f.read())
with open(case["inputs"][1]["path"], "rb") as f:
    b.frombytes(f.read())
c = array.array("f", [0.0] * (m * n))
for i in range(m):
    for j in range(n):
        c[i * n + j] = sum(a[i * k + p] * b[p * n + j] for p in range(k))
if behaviour == "wrong":
    c = array.array("f", [x + 1.0 for x in c])
if behaviour == "wrongsize":
    c = c[:-1]
if behaviour != "nowrite":
    with open(case["output"]["path"], "wb") as f:
        f.write(c.tobytes())

samples = [] if behaviour == "nosamples" else [0.010, 0.011, 0.012, 0.010, 0.013]
if behaviour == "fast":  # 1e-9 ms for 480 FLOP: 480 TFLOP/s, which no host reaches
    samples = [1e-9] * 5
if behaviour == "toomany":  # far more samples than max_samples allows
    samples = [0.010] * 50000
if behaviour == "huge":  # a sample longer than the adapter call may last
    samples = [0.010, 1e300]
samples = [x * float(os.environ.get("FAKE_ADAPTER_SCALE", "1")) for x in samples]
reply({
    "status": "ok",
    "mode": "host",
    "samples_ms": samples,
    "summary_ms": {"mean": 0.0112, "p50": 0.011, "p95": 0.013, "min": 0.010, "max": 0.013},
    "throughput": {"tflops": 2.0 * m * n * k / 0.011e-3 / 1e12},
    "peak_memory_bytes": 0,
    "versions": {"fake": "1.0", "python": sys.version.split()[0]},
})
if behaviour == "several":
    reply({"status": "ok", "note": "a second object"})
sys.exit(3 if behaviour == "exit3" else 0)
