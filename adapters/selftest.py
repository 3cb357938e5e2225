#!/usr/bin/env python3
"""Self-test of assay's Python adapters on a machine with a GPU and the stacks installed.

Builds small cases of every adapter / variant / workload / dtype (inputs written with numpy,
the output file poisoned with 0xFF like assay does), runs each adapter as assay does
(`python3 adapters/X.py`, the case JSON on stdin), checks the protocol (exactly one JSON object
on stdout, exit 0, the fields parse_reply requires) and the output against a float64 numpy
reference with |out - ref| <= 0.02 + 0.01 |ref|, and prints a table.

  python3 adapters/selftest.py [--jobs N] [--deadline S] [--only SUBSTR] [--out DIR]

Jobs run in parallel (timings are not meaningful here, only correctness and the protocol).
Jobs not started before the deadline are listed as "not run".
"""
import argparse
import json
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ADAPTERS = HERE
ATOL, RTOL = 0.02, 0.01

TORCH_VARIANTS = ["eager", "sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "sdpa-math",
                  "compile-default", "compile-reduce-overhead", "compile-max-autotune"]
DTYPES = ["f32", "f16", "bf16"]

# small shapes, odd sizes so that edges are exercised
SHAPES = {
    "gemm": {"m": 67, "n": 45, "k": 83},
    "mlp": {"batch": 33, "hidden": 48},
    "attention": {"b": 2, "h": 3, "s": 70, "d": 64, "causal": 1},
}

MEASURE = {
    "mode": "cold",
    "warmup": {"calls": 2, "min_s": 0.01},
    "budget": {"min_samples": 5, "max_samples": 30, "min_time_s": 0.02, "target_rel_ci": 0.05, "timeout_s": 5.0},
}


# ---------------------------------------------------------------------------------------------
# data and the float64 reference, in plain Python (no numpy needed, so this file is testable
# anywhere); tensors are flat lists in row-major order

def numel(shape):
    n = 1
    for x in shape:
        n *= x
    return n


def bf16_bits(x):
    u = struct.unpack("<I", struct.pack("<f", x))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def encode(vals, dtype):
    """(file bytes, the float64 values those bytes hold)."""
    n = len(vals)
    if dtype == "f32":
        raw = struct.pack("<%df" % n, *vals)
    elif dtype == "f16":
        raw = struct.pack("<%de" % n, *vals)
    else:
        raw = struct.pack("<%dH" % n, *[bf16_bits(v) for v in vals])
    return raw, decode(raw, dtype)


def decode(raw, dtype):
    if dtype == "f32":
        return list(struct.unpack("<%df" % (len(raw) // 4), raw))
    if dtype == "f16":
        return list(struct.unpack("<%de" % (len(raw) // 2), raw))
    bits = struct.unpack("<%dH" % (len(raw) // 2), raw)
    return list(struct.unpack("<%df" % len(bits), struct.pack("<%dI" % len(bits), *[b << 16 for b in bits])))


def input_arrays(workload, p, rng):
    """[(name, shape, values)], (output name, output shape)."""
    def u(shape, scale=1.0):
        return (list(shape), [rng.uniform(-1.0, 1.0) * scale for _ in range(numel(shape))])

    if workload == "gemm":
        return [("A",) + u((p["m"], p["k"])), ("B",) + u((p["k"], p["n"]))], ("C", [p["m"], p["n"]])
    if workload == "mlp":
        b, h = p["batch"], p["hidden"]
        return [("X",) + u((b, h)), ("W1",) + u((h, 4 * h), 1 / math.sqrt(h)), ("b1",) + u((4 * h,), 0.5),
                ("W2",) + u((4 * h, h), 1 / math.sqrt(4 * h)), ("b2",) + u((h,), 0.5)], ("Y", [b, h])
    if workload == "attention":
        shape = (p["b"], p["h"], p["s"], p["d"])
        return [("Q",) + u(shape), ("K",) + u(shape), ("V",) + u(shape)], ("O", list(shape))
    raise ValueError(workload)


def matmul(a, b, m, k, n):
    """a [m,k] · b [k,n], flat lists."""
    cols = [b[j::n] for j in range(n)]
    out = []
    for i in range(m):
        row = a[i * k:(i + 1) * k]
        out.extend(sum(x * y for x, y in zip(row, col)) for col in cols)
    return out


def reference(workload, p, x):
    if workload == "gemm":
        return matmul(x["A"], x["B"], p["m"], p["k"], p["n"])
    if workload == "mlp":
        b, h = p["batch"], p["hidden"]
        hid = matmul(x["X"], x["W1"], b, h, 4 * h)
        hid = [v + x["b1"][i % (4 * h)] for i, v in enumerate(hid)]
        g = [0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0))) for v in hid]
        y = matmul(g, x["W2"], b, 4 * h, h)
        return [v + x["b2"][i % h] for i, v in enumerate(y)]
    if workload == "attention":
        s, d = p["s"], p["d"]
        scale = 1.0 / math.sqrt(d)
        out = []
        for bh in range(p["b"] * p["h"]):
            base = bh * s * d
            q = [x["Q"][base + i * d: base + (i + 1) * d] for i in range(s)]
            k = [x["K"][base + i * d: base + (i + 1) * d] for i in range(s)]
            vcols = [x["V"][base + c: base + s * d: d] for c in range(d)]
            for i in range(s):
                last = i + 1 if p["causal"] else s
                sc = [scale * sum(a * c for a, c in zip(q[i], k[j])) for j in range(last)]
                mx = max(sc)
                e = [math.exp(v - mx) for v in sc]
                tot = sum(e)
                pr = [v / tot for v in e]
                out.extend(sum(a * c for a, c in zip(pr, col)) for col in vcols)
        return out
    raise ValueError(workload)


_cache = {}
_cache_lock = threading.Lock()


def case_data(workload, dtype, params):
    """Inputs (name, shape, raw bytes, values), output (name, shape) and the reference; the
    same for every adapter and variant of one (workload, dtype, params), computed once."""
    key = (workload, dtype, tuple(sorted(params.items())))
    with _cache_lock:
        if key not in _cache:
            rng = random.Random(repr(key))
            arrays, out = input_arrays(workload, params, rng)
            inputs, vals = [], {}
            for name, shape, v in arrays:
                raw, q = encode(v, dtype)
                inputs.append((name, shape, raw))
                vals[name] = q
            _cache[key] = (inputs, out, reference(workload, params, vals))
        return _cache[key]


# ---------------------------------------------------------------------------------------------
# jobs

class Job:
    def __init__(self, adapter, variant, workload, dtype, purpose="measure", params=None, device="0",
                 expect="ok", note=""):
        self.adapter, self.variant, self.workload, self.dtype = adapter, variant, workload, dtype
        self.purpose, self.device, self.expect, self.note = purpose, device, expect, note
        self.params = dict(params or SHAPES[workload])
        self.status = "not run"
        self.verdict = "NOT RUN"
        self.err = None  # max |out-ref| / (atol + rtol |ref|)
        self.p50 = None
        self.mode = ""
        self.wall = None
        self.message = ""
        self.reply = {}

    def name(self):
        shape = ",".join("%s=%s" % kv for kv in self.params.items())
        return "%s/%s/%s/%s/%s[%s]" % (self.adapter, self.variant, self.workload, self.dtype, self.purpose, shape)


def default_jobs():
    jobs = []
    # fast ones first: eager torch, jax, triton, sdpa; then the compiled variants
    for v in ["eager", "sdpa-flash", "sdpa-efficient", "sdpa-cudnn", "sdpa-math"]:
        for w in (["gemm", "mlp", "attention"] if v == "eager" else ["attention"]):
            for dt in DTYPES:
                p = dict(SHAPES[w])
                if w == "attention" and dt == "f32":
                    p["causal"] = 0
                jobs.append(Job("torch", v, w, dt, params=p))
    for w in ["gemm", "mlp", "attention"]:
        for dt in DTYPES:
            p = dict(SHAPES[w])
            if w == "attention" and dt == "f32":
                p["causal"] = 0
            jobs.append(Job("jax", "jit", w, dt, params=p))
    for w in ["gemm", "mlp"]:
        for dt in DTYPES:
            jobs.append(Job("triton", "matmul", w, dt))
    jobs += [
        Job("triton", "matmul", "gemm", "f32", params={"m": 1, "n": 1, "k": 1}, note="edge"),
        Job("triton", "matmul", "gemm", "bf16", params={"m": 130, "n": 257, "k": 17}, note="edge"),
        Job("triton", "matmul", "mlp", "f16", params={"batch": 1, "hidden": 8}, note="edge"),
        Job("torch", "eager", "gemm", "f16", purpose="check"),
        Job("jax", "jit", "mlp", "bf16", purpose="check"),
        Job("triton", "matmul", "mlp", "f32", purpose="check"),
        # replies that must be "unavailable"
        Job("triton", "matmul", "attention", "f16", expect="unavailable"),
        Job("torch", "sdpa-flash", "gemm", "f16", expect="unavailable"),
        Job("torch", "no-such-variant", "gemm", "f16", expect="unavailable"),
        Job("torch", "eager", "gemm", "f16", device="cpu", expect="unavailable"),
        Job("jax", "jit", "gemm", "f16", device="cpu", expect="unavailable"),
    ]
    # compiled variants last (slow), every variant and workload in f16 first
    for dt in ["f16", "f32", "bf16"]:
        for w in ["gemm", "mlp", "attention"]:
            for v in ["compile-default", "compile-reduce-overhead", "compile-max-autotune"]:
                p = dict(SHAPES[w])
                if w == "attention" and dt == "f32":
                    p["causal"] = 0
                jobs.append(Job("torch", v, w, dt, params=p))
    return jobs


def validate_reply(text, purpose):
    """The checks of src/backends/adapter_protocol.cpp parse_reply; returns (reply, problem)."""
    if not text.strip():
        return None, "printed nothing on stdout"
    try:
        r = json.loads(text)
    except ValueError as e:
        return None, "stdout is not one JSON value: %s: %r" % (e, text[:200])
    if not isinstance(r, dict):
        return None, "reply is not an object"
    st = r.get("status")
    if not isinstance(st, str):
        return r, "status missing"
    if st in ("unavailable", "error"):
        if not isinstance(r.get("message"), str) or not r["message"]:
            return r, "message missing"
        return r, None
    if st != "ok":
        return r, "bad status %r" % st
    if not isinstance(r.get("mode"), str):
        return r, "mode missing"
    s = r.get("samples_ms")
    if not isinstance(s, list) or any(not isinstance(x, (int, float)) or not (x > 0) or not math.isfinite(x) for x in s):
        return r, "samples_ms missing or not positive numbers"
    for key in ("throughput",):
        if not isinstance(r.get(key), dict) or any(not isinstance(v, (int, float)) for v in r[key].values()):
            return r, key + " missing or not numbers"
    if not isinstance(r.get("versions"), dict):
        return r, "versions missing"
    if not isinstance(r.get("peak_memory_bytes"), (int, float)):
        return r, "peak_memory_bytes missing"
    if purpose == "measure":
        if not s:
            return r, "no samples for a measuring call"
        sm = r.get("summary_ms")
        if not isinstance(sm, dict) or any(k not in sm for k in ("mean", "p50", "p95", "min", "max")):
            return r, "summary_ms incomplete"
    return r, None


def save_stderr(job, text, errdir):
    if not errdir:
        return
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in job.name())
    with open(os.path.join(errdir, name + ".stderr.txt"), "w") as f:
        f.write(text or "")


def run_job(job, workdir, seed, timeout_s, errdir=""):
    data_inputs, (out_name, out_shape), ref = case_data(job.workload, job.dtype, job.params)
    d = tempfile.mkdtemp(prefix="case-", dir=workdir)
    inputs = []
    for name, shape, raw in data_inputs:
        path = os.path.join(d, name + ".bin")
        with open(path, "wb") as f:
            f.write(raw)
        inputs.append({"name": name, "path": path, "dtype": job.dtype, "shape": shape})
    out_bytes = numel(out_shape) * (4 if job.dtype == "f32" else 2)
    out_path = os.path.join(d, out_name + ".bin")
    with open(out_path, "wb") as f:
        f.write(b"\xff" * out_bytes)
    case = {
        "protocol": "assay.adapter/1", "backend": job.adapter, "variant": job.variant,
        "workload": job.workload, "params": job.params, "dtype": job.dtype, "purpose": job.purpose,
        "seed": seed, "device": job.device, "mode": MEASURE["mode"], "warmup": MEASURE["warmup"],
        "budget": MEASURE["budget"],
        "precision": {"tf32": False, "reduced_precision_reduction": False, "fast_accum": False},
        "inputs": inputs,
        "output": {"name": out_name, "path": out_path, "dtype": job.dtype, "shape": list(out_shape)},
    }
    t0 = time.time()
    env = dict(os.environ)
    # many adapters compile at once here: keep each one's inductor worker pool small
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "2")
    proc = subprocess.Popen([sys.executable, os.path.join(ADAPTERS, job.adapter + "_adapter.py")],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                            start_new_session=True, env=env)
    try:
        stdout, stderr = proc.communicate(json.dumps(case) + "\n", timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, 9)  # the adapter and everything it started (its own session)
        except OSError:
            pass
        stdout, stderr = proc.communicate()
        job.wall = time.time() - t0
        job.status, job.verdict, job.message = "timeout", "FAIL", "no reply within %.0f s" % timeout_s
        save_stderr(job, stderr, errdir)
        return
    job.wall = time.time() - t0
    save_stderr(job, stderr, errdir)
    p = subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)
    reply, problem = validate_reply(p.stdout, job.purpose)
    if reply is not None and isinstance(reply, dict):
        job.status = str(reply.get("status"))
        job.message = str(reply.get("message", ""))
        job.mode = str(reply.get("mode", ""))
        sm = reply.get("summary_ms") or {}
        job.p50 = sm.get("p50")
        job.reply = reply
    if p.stdout.count("\n") != 1 or not p.stdout.endswith("\n"):
        problem = problem or "stdout is not exactly one line: %r" % p.stdout[:300]
    if p.returncode != 0:
        problem = problem or "exit code %d; stderr: %s" % (p.returncode, p.stderr[-300:])
    if problem:
        job.verdict = "FAIL"
        job.message = (problem + " | " + job.message + " | stderr: " + " ".join(p.stderr[-400:].split()))[:600]
        return
    if job.status != "ok":
        job.verdict = "PASS" if job.status == job.expect else ("UNAVAIL" if job.status == "unavailable" else "FAIL")
        return
    if job.expect != "ok":
        job.verdict = "FAIL"
        job.message = "expected %s, got ok" % job.expect
        return
    with open(out_path, "rb") as f:
        raw = f.read()
    if len(raw) != out_bytes:
        job.verdict, job.message = "FAIL", "output holds %d bytes, expected %d" % (len(raw), out_bytes)
        return
    out = decode(raw, job.dtype)
    if not all(math.isfinite(v) for v in out):
        job.err = float("inf")
    else:
        job.err = max(abs(o - r) / (ATOL + RTOL * abs(r)) for o, r in zip(out, ref))
    job.verdict = "PASS" if job.err <= 1.0 else "FAIL"
    if job.verdict == "FAIL":
        job.message = "output off: max |out-ref|/(atol+rtol|ref|) = %.3g" % job.err


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jobs", type=int, default=6, help="adapters run at once")
    ap.add_argument("--deadline", type=float, default=170.0, help="start no job after this many seconds")
    ap.add_argument("--timeout", type=float, default=150.0, help="per-adapter-call limit, seconds")
    ap.add_argument("--only", default="", help="run only the jobs whose name contains this")
    ap.add_argument("--out", default="", help="folder for results.json and the stderr of each case")
    ap.add_argument("--adapters", default=HERE, help="folder of the adapters to test (default: this one)")
    args = ap.parse_args()
    global ADAPTERS
    ADAPTERS = os.path.abspath(args.adapters)

    jobs = [j for j in default_jobs() if args.only in j.name()]
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_mode,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        print("gpu: " + " | ".join(q.stdout.strip().splitlines()), flush=True)
        if "exclusive" in q.stdout.lower() and args.jobs > 1:
            print("the GPU is in an exclusive compute mode: running one adapter at a time", flush=True)
            args.jobs = 1
    except Exception as e:  # noqa: BLE001
        print("gpu: nvidia-smi failed: %s" % e, flush=True)
    workdir = tempfile.mkdtemp(prefix="assay-selftest-")
    errdir = ""
    if args.out:
        errdir = os.path.join(args.out, "stderr")
        os.makedirs(errdir, exist_ok=True)
    start = time.time()
    lock = threading.Lock()
    queue = list(enumerate(jobs))

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                i, job = queue.pop(0)
            left = args.deadline - (time.time() - start)
            if left <= 5:
                job.message = "deadline"
                continue
            try:
                run_job(job, workdir, 1000 + i, min(args.timeout, left + 20), errdir)
            except Exception as e:  # noqa: BLE001
                job.verdict, job.message = "FAIL", "selftest error: %s: %s" % (type(e).__name__, e)
            with lock:
                print("%-5s %6.1fs  %s %s" % (job.verdict, job.wall or 0, job.name(),
                                              ("| " + job.message[:160]) if job.message else ""), flush=True)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, args.jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    shutil.rmtree(workdir, ignore_errors=True)
    # versions seen
    seen = {}
    for j in jobs:
        for k, v in (getattr(j, "reply", {}) or {}).get("versions", {}).items():
            seen.setdefault(k, set()).add(v)
    print("\nversions: " + "; ".join("%s=%s" % (k, "/".join(sorted(v))) for k, v in sorted(seen.items())))

    print("\n%-7s %-24s %-9s %-5s %-7s %-11s %-8s %-9s %-6s %s" % (
        "adapter", "variant", "workload", "dtype", "purpose", "status", "err", "p50_ms", "wall_s", "verdict / note"))
    for j in jobs:
        err = "-" if j.err is None else "%.3f" % j.err
        p50 = "-" if j.p50 is None else "%.4f" % j.p50
        wall = "-" if j.wall is None else "%.1f" % j.wall
        note = j.verdict + ((" " + j.note) if j.note else "")
        if j.message and j.verdict != "PASS" or j.status == "unavailable":
            note += " | " + j.message[:200]
        dev = "" if j.device == "0" else "@" + j.device
        print("%-7s %-24s %-9s %-5s %-7s %-11s %-8s %-9s %-6s %s" % (
            j.adapter, j.variant, j.workload, j.dtype + dev, j.purpose, j.status, err, p50, wall, note))
    counts = {}
    for j in jobs:
        counts[j.verdict] = counts.get(j.verdict, 0) + 1
    print("\nSUMMARY: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())) +
          " (err = max |out-ref|/(%.2g+%.2g|ref|), PASS when <= 1; UNAVAIL: the stack said it cannot run the case)"
          % (ATOL, RTOL) + "; %.0f s" % (time.time() - start))
    if args.out:
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump([{k: v for k, v in vars(j).items()} for j in jobs], f, indent=1, default=str)
    return 1 if counts.get("FAIL") else 0


if __name__ == "__main__":
    sys.exit(main())
