"""Shared helpers of assay's Python adapters (protocol "assay.adapter/1", see
src/backends/adapter_protocol.cpp): read the case from stdin, load the inputs, time calls the
way assay's cold mode does, write the output file and print exactly one JSON reply.

An adapter is a script that calls `main(run)`: `run(case)` returns the reply dict (use
`ok_reply`), or raises `Unavailable(reason)`; any other exception becomes an "error" reply.
Whatever libraries print goes to stderr: fd 1 is pointed at stderr for the whole run and the
reply is written on the saved real stdout at the very end. The process exits 0 after a reply.

This module imports only the standard library at import time (numpy and torch are imported
by the functions that need them), so that "stack not importable" is replied, not crashed on.
"""
import bisect
import json
import math
import os
import sys
import time
import traceback

PROTOCOL = "assay.adapter/1"

# bytes per element of the dtypes assay writes
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2}


class Unavailable(Exception):
    """The case cannot run here: stack missing, no GPU, variant not supported."""


# ---------------------------------------------------------------------------------------------
# stdout protection and the reply

_real_stdout_fd = None


def _protect_stdout():
    """Point fd 1 (and sys.stdout) at stderr; keep the real stdout for the reply."""
    global _real_stdout_fd
    if _real_stdout_fd is not None:
        return
    try:
        sys.stdout.flush()
    except Exception:
        pass
    _real_stdout_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr


def _emit(reply):
    """Writes the one JSON object (one line) on the real stdout."""
    text = json.dumps(reply, allow_nan=False) + "\n"
    for stream in (sys.stdout, sys.stderr, sys.__stdout__):
        try:
            stream.flush()
        except Exception:
            pass
    fd = _real_stdout_fd if _real_stdout_fd is not None else 1
    data = text.encode()
    while data:
        n = os.write(fd, data)
        data = data[n:]


def one_line(text, limit=900):
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def error_message(exc):
    """The exception's text on one line, plus where it was raised (the last traceback line)."""
    first = str(exc).strip().splitlines()
    head = type(exc).__name__ + (": " + first[0] if first else "")
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        f = frames[-1]
        where = " [at %s:%d in %s]" % (os.path.basename(f.filename), f.lineno, f.name)
    return one_line(head, 700) + where


def unavailable_reply(reason):
    return {"status": "unavailable", "message": one_line(reason) or "unavailable"}


def error_reply(message):
    return {"status": "error", "message": one_line(message) or "error"}


def summary_ms(samples):
    s = sorted(samples)
    return {
        "mean": sum(s) / len(s),
        "p50": percentile_sorted(s, 50),
        "p95": percentile_sorted(s, 95),
        "min": s[0],
        "max": s[-1],
    }


def ok_reply(case, mode, samples_ms, out_flops=None, peak_memory_bytes=0, versions=None):
    """An ok reply. samples_ms empty for purpose "check" (no summary, empty throughput)."""
    samples = [float(x) for x in samples_ms]
    reply = {
        "status": "ok",
        "mode": mode,
        "samples_ms": samples,
        "throughput": {},
        "peak_memory_bytes": float(peak_memory_bytes or 0),
        "versions": {k: str(v) for k, v in (versions or {}).items()},
    }
    if samples:
        summ = summary_ms(samples)
        reply["summary_ms"] = summ
        flops = out_flops if out_flops is not None else workload_flops(case)
        if flops and summ["p50"] > 0:
            reply["throughput"] = {"tflops": flops / (summ["p50"] * 1e-3) / 1e12}
    return reply


def main(run):
    """Runs `run(case)` and prints its reply; exits 0 after any reply."""
    _protect_stdout()
    reply = None
    try:
        try:
            case = read_case()
        except Unavailable:
            raise
        except Exception as e:  # a bad case is the caller's error
            raise _BadCase("cannot read the case from stdin: " + error_message(e))
        reply = run(case)
        if not isinstance(reply, dict) or "status" not in reply:
            reply = error_reply("adapter returned no reply")
    except Unavailable as e:
        reply = unavailable_reply(str(e))
    except _BadCase as e:
        reply = error_reply(str(e))
    except BaseException as e:  # noqa: BLE001 - everything becomes a reply
        if isinstance(e, KeyboardInterrupt):
            reply = error_reply("interrupted")
        else:
            traceback.print_exc(file=sys.stderr)
            reply = error_reply(error_message(e))
    try:
        _emit(reply)
    except Exception:
        traceback.print_exc(file=sys.stderr)
        os._exit(1)
    # Shut library worker pools down (atexit), but skip the interpreter teardown, where some
    # GPU stacks crash and would turn a delivered reply into a non-zero exit.
    try:
        import atexit

        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)


class _BadCase(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# the case

def read_case(stream=None):
    text = (stream or sys.stdin).read()
    case = json.loads(text)
    if not isinstance(case, dict):
        raise ValueError("the case is not a JSON object")
    proto = case.get("protocol")
    if proto != PROTOCOL:
        raise ValueError("protocol is %r, this adapter speaks %r" % (proto, PROTOCOL))
    for key in ("workload", "dtype", "params", "inputs", "output", "device"):
        if key not in case:
            raise ValueError("the case has no field %r" % key)
    case.setdefault("variant", "")
    case.setdefault("purpose", "measure")
    case.setdefault("warmup", {})
    case.setdefault("budget", {})
    case.setdefault("precision", {})
    return case


def input_spec(case, name):
    for t in case["inputs"]:
        if t.get("name") == name:
            return t
    raise ValueError("the case has no input named %r (has %s)" % (name, [t.get("name") for t in case["inputs"]]))


def numel(shape):
    n = 1
    for x in shape:
        n *= int(x)
    return n


def check_dtype(case):
    if case["dtype"] not in DTYPE_BYTES:
        raise Unavailable("dtype %s is not supported by this adapter" % case["dtype"])


def read_numpy(spec):
    """A numpy array of the raw file: float32 / float16, or uint16 bits for bf16."""
    import numpy as np

    dt = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[spec["dtype"]]
    shape = [int(x) for x in spec["shape"]]
    expected = numel(shape) * DTYPE_BYTES[spec["dtype"]]
    size = os.path.getsize(spec["path"])
    if size != expected:
        raise ValueError("input %s holds %d bytes, expected %d (%s %s)" % (spec["name"], size, expected, spec["dtype"], shape))
    a = np.fromfile(spec["path"], dtype=np.dtype(dt).newbyteorder("<"), count=numel(shape))
    return a.astype(a.dtype.newbyteorder("="), copy=False).reshape(shape)


def write_bytes(case, data):
    """Writes the output file; `data` must be exactly the expected size."""
    spec = case["output"]
    expected = numel(spec["shape"]) * DTYPE_BYTES[spec["dtype"]]
    if len(data) != expected:
        raise ValueError("output holds %d bytes, expected %d (%s %s)" % (len(data), expected, spec["dtype"], spec["shape"]))
    with open(spec["path"], "wb") as f:
        f.write(data)


def workload_flops(case):
    p = case["params"]
    w = case["workload"]
    try:
        if w == "gemm":
            return 2.0 * p["m"] * p["n"] * p["k"]
        if w == "mlp":
            return 16.0 * p["batch"] * p["hidden"] ** 2
        if w == "attention":
            f = 4.0 * p["b"] * p["h"] * p["s"] ** 2 * p["d"]
            return f / 2 if int(p.get("causal", 0)) else f
    except KeyError:
        return None
    return None


INPUT_NAMES = {"gemm": ["A", "B"], "mlp": ["X", "W1", "b1", "W2", "b2"], "attention": ["Q", "K", "V"]}


def package_versions(names):
    """Installed versions by distribution name, without importing the packages."""
    out = {}
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover
        return out
    for n in names:
        try:
            out[n] = metadata.version(n)
        except Exception:
            out[n] = "absent"
    return out


# ---------------------------------------------------------------------------------------------
# statistics: the same rules as assay (src/stats/summary.cpp, src/measure/stopping_rule.cpp)

def percentile_sorted(s, q):
    """numpy's default (linear, R type 7)."""
    if not s:
        raise ValueError("percentile of no samples")
    h = (len(s) - 1) * q / 100.0
    lo = int(math.floor(h))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (h - lo) * (s[hi] - s[lo])


def _binom_pmf(n, i):
    return math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2.0))


def median_ci_ranks(n, confidence=0.95):
    """1-based ranks (j, n+1-j) of the distribution-free CI of the median, the largest j with
    P(j <= B <= n-j) >= confidence for B ~ Binomial(n, 1/2); None when even (1, n) falls short."""
    if n < 1:
        return None
    # Coverage of [j, n-j] summed from the centre outwards.
    lo = n // 2
    hi = n - lo  # lo == hi when n is even
    if lo == hi:
        cov = _binom_pmf(n, lo)
    else:
        cov = _binom_pmf(n, lo) + _binom_pmf(n, hi)
    j = lo
    # interval [j, n-j] in B's values; shrink j until the coverage is reached
    while cov < confidence * (1 - 1e-12):
        j -= 1
        if j < 1:
            return None
        cov += _binom_pmf(n, j) + _binom_pmf(n, n - j)
    # B in [j, n-j] <=> X_(j) <= median < X_(n+1-j): ranks (j, n+1-j)
    return j, n + 1 - j


class StoppingRule:
    """Sampling goes on until: max_samples; or min_samples, min_time_s and the median's 95% CI
    relative half-width <= target_rel_ci; or timeout_s."""

    def __init__(self, budget):
        self.min_samples = int(budget.get("min_samples", 20))
        self.max_samples = int(budget.get("max_samples", 5000))
        self.min_time_s = float(budget.get("min_time_s", 0.3))
        self.target = float(budget.get("target_rel_ci", 0.01))
        self.timeout_s = float(budget.get("timeout_s", 15.0))
        self.sorted = []

    def add(self, x):
        if not math.isfinite(x):
            raise ValueError("sample is NaN or infinite")
        bisect.insort(self.sorted, x)

    def rel_halfwidth(self):
        n = len(self.sorted)
        if n == 0:
            return math.inf
        ranks = median_ci_ranks(n)
        if ranks is None:
            return math.inf
        lo, hi = self.sorted[ranks[0] - 1], self.sorted[ranks[1] - 1]
        med = percentile_sorted(self.sorted, 50)
        if med == 0:
            return math.inf
        return (hi - lo) / 2.0 / abs(med)

    def stop_reason(self, elapsed_s):
        n = len(self.sorted)
        if n >= self.max_samples:
            return "max-samples"
        if n >= self.min_samples and elapsed_s >= self.min_time_s and self.rel_halfwidth() <= self.target:
            return "converged"
        if elapsed_s >= self.timeout_s:
            return "timeout"
        return None


def measure_loop(warmup_call, sample, case):
    """assay's measuring loop (src/measure/measure_loop.cpp): warm-up of warmup.calls calls and
    at least warmup.min_s seconds (cut at timeout_s/2), then samples until the stopping rule
    says stop. `sample()` returns one time in ms. Returns (samples_ms, stop_reason)."""
    warm = case.get("warmup", {})
    rule = StoppingRule(case.get("budget", {}))
    calls = int(warm.get("calls", 3))
    min_s = float(warm.get("min_s", 0.05))
    start = time.perf_counter()
    elapsed = lambda: time.perf_counter() - start  # noqa: E731
    n = 0
    while n < calls or elapsed() < min_s:
        warmup_call()
        n += 1
        if elapsed() >= rule.timeout_s / 2:
            break
    samples = []
    while True:
        ms = float(sample())
        if not (ms > 0) or not math.isfinite(ms):
            ms = 1e-6 if ms == 0 else ms  # a 0 from a coarse timer; NaN/inf are errors below
        samples.append(ms)
        rule.add(ms)
        reason = rule.stop_reason(elapsed())
        if reason:
            return samples, reason


# ---------------------------------------------------------------------------------------------
# torch helpers

def import_torch():
    try:
        import torch  # noqa: F401
    except Exception as e:
        raise Unavailable("torch is not importable: " + error_message(e))
    return torch


def torch_device(case):
    """The CUDA device of the case, made current; Unavailable on "cpu" or without CUDA."""
    torch = import_torch()
    dev = str(case["device"])
    if dev == "cpu":
        raise Unavailable("this adapter runs on CUDA devices only (device is cpu)")
    if not torch.cuda.is_available():
        raise Unavailable("torch.cuda.is_available() is false (torch %s, built for CUDA %s)" % (torch.__version__, torch.version.cuda))
    try:
        idx = int(dev)
    except ValueError:
        raise Unavailable("device %r is not a CUDA device index" % dev)
    count = torch.cuda.device_count()
    if idx < 0 or idx >= count:
        raise Unavailable("CUDA device %d does not exist (%d visible)" % (idx, count))
    torch.cuda.set_device(idx)
    return torch.device("cuda", idx)


def torch_dtype(torch, name):
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def load_torch_inputs(case, device):
    """{name: tensor on device} for every input of the case, in the file's dtype."""
    torch = import_torch()
    out = {}
    for spec in case["inputs"]:
        a = read_numpy(spec)
        t = torch.from_numpy(a.view("int16") if spec["dtype"] == "bf16" else a)
        if spec["dtype"] == "bf16":
            t = t.view(torch.bfloat16)
        out[spec["name"]] = t.to(device).contiguous()
    return out


def write_torch_output(case, tensor):
    torch = import_torch()
    spec = case["output"]
    want = torch_dtype(torch, spec["dtype"])
    if tensor.dtype != want:
        raise ValueError("output dtype is %s, expected %s" % (tensor.dtype, want))
    if list(tensor.shape) != [int(x) for x in spec["shape"]]:
        raise ValueError("output shape is %s, expected %s" % (list(tensor.shape), spec["shape"]))
    t = tensor.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    write_bytes(case, t.numpy().tobytes())


def apply_torch_precision(case):
    """The run's precision policy (case["precision"]); returns the settings for "versions"."""
    import warnings

    torch = import_torch()
    prec = case.get("precision", {})
    tf32 = bool(prec.get("tf32", False))
    reduced = bool(prec.get("reduced_precision_reduction", False))
    problems = []

    def setting(name, legacy, new=None):
        try:
            legacy()
        except Exception as e:
            if new is None:
                problems.append("%s: %s" % (name, one_line(e, 120)))
                return
            try:
                new()
            except Exception as e2:
                problems.append("%s: %s / %s" % (name, one_line(e, 120), one_line(e2, 120)))

    fp32 = "tf32" if tf32 else "ieee"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        setting("matmul.allow_tf32", lambda: setattr(torch.backends.cuda.matmul, "allow_tf32", tf32),
                lambda: setattr(torch.backends.cuda.matmul, "fp32_precision", fp32))
        setting("cudnn.allow_tf32", lambda: setattr(torch.backends.cudnn, "allow_tf32", tf32),
                lambda: setattr(torch.backends.cudnn, "fp32_precision", fp32))
        setting("allow_fp16_reduced_precision_reduction",
                lambda: setattr(torch.backends.cuda.matmul, "allow_fp16_reduced_precision_reduction", reduced))
        setting("allow_bf16_reduced_precision_reduction",
                lambda: setattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", reduced))
        setting("float32_matmul_precision", lambda: torch.set_float32_matmul_precision("high" if tf32 else "highest"))
    if problems:
        raise RuntimeError("cannot apply the precision policy: " + "; ".join(problems))
    return torch_precision_report()


def torch_precision_report():
    import warnings

    torch = import_torch()
    rep = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, get in (
            ("torch.allow_tf32", lambda: torch.backends.cuda.matmul.allow_tf32),
            ("torch.cudnn.allow_tf32", lambda: torch.backends.cudnn.allow_tf32),
            ("torch.allow_fp16_reduced_precision_reduction",
             lambda: torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction),
            ("torch.allow_bf16_reduced_precision_reduction",
             lambda: torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction),
            ("torch.float32_matmul_precision", torch.get_float32_matmul_precision),
            ("torch.matmul.fp32_precision", lambda: torch.backends.cuda.matmul.fp32_precision),
        ):
            if key == "torch.matmul.fp32_precision" and not hasattr(torch.backends.cuda.matmul, "fp32_precision"):
                continue
            try:
                rep[key] = str(get())
            except Exception as e:
                rep[key] = "unknown (%s)" % one_line(e, 80)
    return rep


def torch_versions(device):
    torch = import_torch()
    v = package_versions(["torch", "triton", "jax", "jaxlib"])
    v["torch"] = torch.__version__
    v["cuda"] = str(torch.version.cuda)
    try:
        v["cudnn"] = str(torch.backends.cudnn.version())
    except Exception:
        pass
    v["gpu"] = torch.cuda.get_device_name(device)
    v["python"] = sys.version.split()[0]
    return v


class _Spin:
    """Holds the stream with torch.cuda._sleep while the host enqueues a timed call, as assay's
    cold mode blocks its stream (so host launch overhead stays out of the GPU-side sample)."""

    def __init__(self, torch):
        self.torch = torch
        self.cycles_per_s = None
        sleep = getattr(torch.cuda, "_sleep", None)
        if sleep is None:
            return
        try:
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            sleep(10000)
            cycles = 2_000_000
            s.record()
            sleep(cycles)
            e.record()
            e.synchronize()
            ms = s.elapsed_time(e)
            if ms > 0:
                self.cycles_per_s = cycles / (ms * 1e-3)
        except Exception:
            self.cycles_per_s = None

    def hold(self, seconds):
        if self.cycles_per_s is None or seconds <= 0:
            return
        self.torch.cuda._sleep(int(self.cycles_per_s * min(seconds, 0.05)))


def l2_flush_bytes(torch, device):
    try:
        l2 = int(torch.cuda.get_device_properties(device).L2_cache_size)
    except Exception:
        l2 = 0
    if l2 <= 0:
        l2 = 128 << 20
    mib = 1 << 20
    return ((2 * l2 + mib - 1) // mib) * mib


def torch_check_call(fn, device):
    """purpose "check": one call; returns (output, peak_memory_bytes)."""
    torch = import_torch()
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    out = fn()
    torch.cuda.synchronize(device)
    return out, torch.cuda.max_memory_allocated(device)


def time_cold(fn, case, device=None, before_call=None):
    """Times `fn()` (which returns the output tensor) the way assay's cold mode does.

    One priming call first (compilation, autotuning, lazy initialisation: like the setup of
    assay's own backends, it is outside the warm-up clock), then assay's warm-up and sampling
    loop; each sample flushes L2 (writes a buffer of 2x the L2 size), holds the stream while
    the call is enqueued, and times ONE call with CUDA events.
    `before_call()` runs before every call (e.g. torch.compiler.cudagraph_mark_step_begin).
    Returns (samples_ms, output of the last timed call, peak_memory_bytes, stop_reason);
    the peak excludes the flush buffer."""
    torch = import_torch()
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device())
    pre = before_call or (lambda: None)

    def call():
        pre()
        return fn()

    flush_n = l2_flush_bytes(torch, device)
    flush = torch.empty(flush_n, dtype=torch.uint8, device=device)
    spin = _Spin(torch)
    torch.cuda.synchronize(device)
    out = call()  # priming call: compilation and autotuning scratch stay out of the peak
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    host_s = [0.0]

    def warmup_call():
        nonlocal out
        out = None
        t0 = time.perf_counter()
        out = call()
        host_s[0] = time.perf_counter() - t0  # host time to enqueue one call (the last one seen)
        torch.cuda.synchronize(device)

    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def sample():
        nonlocal out
        out = None
        flush.zero_()
        spin.hold(1.5 * host_s[0] + 20e-6)
        start.record()
        t0 = time.perf_counter()
        out = call()
        host_s[0] = time.perf_counter() - t0
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    samples, reason = measure_loop(warmup_call, sample, case)
    torch.cuda.synchronize(device)
    peak = max(0, torch.cuda.max_memory_allocated(device) - flush_n)
    del flush
    return samples, out, peak, reason


# ---------------------------------------------------------------------------------------------
# host-clock timing (JAX and other stacks without CUDA events)

def time_host(fn, flush, case):
    """fn() runs one call and waits for it (returns its output); flush() evicts L2 and waits.
    One priming call (compilation) outside the clock, then assay's warm-up and sampling loop,
    each sample timed with time.perf_counter around ONE call.
    Returns (samples_ms, output of the last timed call, stop_reason)."""
    out = fn()  # priming call
    holder = {"out": out}

    def warmup_call():
        holder["out"] = None
        holder["out"] = fn()

    def sample():
        holder["out"] = None
        flush()
        t0 = time.perf_counter()
        o = fn()
        t1 = time.perf_counter()
        holder["out"] = o
        return (t1 - t0) * 1e3

    samples, reason = measure_loop(warmup_call, sample, case)
    return samples, holder["out"], reason
