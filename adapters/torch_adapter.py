#!/usr/bin/env python3
"""assay adapter for PyTorch (protocol "assay.adapter/1"); the variant comes in case["variant"]:
  eager                     the workload in plain torch ops
  compile-default           torch.compile(fn)                        (compiled in the priming call)
  compile-max-autotune      torch.compile(fn, mode="max-autotune")
  compile-reduce-overhead   torch.compile(fn, mode="reduce-overhead")  (CUDA graphs)
  sdpa-flash | sdpa-efficient | sdpa-cudnn | sdpa-math
                            attention only: scaled_dot_product_attention pinned to one backend
  py:MODULE:FUNCTION         a Python callable of the user's (see below)
Workloads: gemm C = A·B (torch.matmul); mlp Y = GELU(X·W1 + b1)·W2 + b2 (addmm, exact-erf gelu,
addmm); attention O = softmax(Q·Kᵀ/√d [causal])·V (F.scaled_dot_product_attention, or the same
in plain ops where torch has no SDPA).

Device "cpu": eager and py: run on the CPU, timed with the host clock (reply mode "host"); eager
computes f16 and bf16 in f32 there and rounds the result (torch's CPU kernels lack f16 before
torch 2 and accumulate bf16 matmuls in bf16; versions["torch.cpu_16bit"] says so). The other
variants are CUDA-only ("unavailable" on cpu).

The py:MODULE:FUNCTION variant: MODULE is a dotted module name found on sys.path (assay puts
the suite's python_path folders on PYTHONPATH), FUNCTION an attribute of it, possibly dotted
(Cls.method). The call convention:
  FUNCTION(*tensors, **flags[, out=OUT]) -> tensor or None
  - tensors: the workload's inputs, positional, in this order, on the case's device, in the
    case's dtype, contiguous:  gemm A[m,k], B[k,n];  mlp X, W1, b1, W2, b2;  attention Q, K, V
    [b,h,s,d];
  - flags: the workload's flags that the shapes do not imply, as keywords: attention gets
    causal=bool; gemm and mlp get none;
  - out: only when the function's signature has a parameter named `out`: a preallocated output
    tensor of the output's shape, dtype and device (filled with NaN before the first call), which
    the function may fill and return, or fill and return None (then `out` is the output);
  - the result: a torch.Tensor of the output's shape (gemm [m,n], mlp [batch,H], attention
    [b,h,s,d]), the case's dtype, on the case's device.
The same tensors (same addresses) are passed to every call; the callable must not modify them.
Validation, outside the timed loop: the first call's result is checked (a torch.Tensor of the
right shape, dtype and device); a second call on the same inputs must agree with it (within a
few units of the dtype's rounding); the last timed call's result is checked the same way, and
so is the result written. An exception raised by the callable (anywhere), a failed import or a
missing attribute is the case's "error" with a one-line message, e.g.
  py:my_pkg.kernels:sdpa: cannot import my_pkg.kernels: ModuleNotFoundError: No module named 'my_pkg'
  py:kernels:sdpa raised ValueError: bad head size [at kernels.py:12 in sdpa]
  py:kernels:sdpa returned list, not a torch.Tensor
  py:kernels:sdpa returned shape [2, 8, 64] f32 on cpu; expected [2, 8, 64, 64] f16 on cuda:0
  py:kernels:sdpa is not deterministic: two calls on the same inputs differ at [0, 1, 5, 3]: ...
versions["python.callable"] is "MODULE:FUNCTION".

Fresh inputs (every variant): a measuring case may carry "fresh_inputs" (the form of "inputs",
other values of the same tensors). Then after the timed loop they are copied INTO the input
tensors in place (addresses kept, so compiled and CUDA-graph variants keep working), one more
untimed call is made, ITS output is written instead of the last timed call's, and the reply has
"fresh_inputs": true. A callable that returns a cached result fails the recheck against the
fresh inputs' oracle.
"""
import importlib
import inspect
import os
import re
import sys
import traceback
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assay_adapter as aa  # noqa: E402

COMPILE_MODES = {
    "compile-default": "default",
    "compile-max-autotune": "max-autotune",
    "compile-reduce-overhead": "reduce-overhead",
}
SDPA_BACKENDS = {
    "sdpa-flash": "FLASH_ATTENTION",
    "sdpa-efficient": "EFFICIENT_ATTENTION",
    "sdpa-cudnn": "CUDNN_ATTENTION",
    "sdpa-math": "MATH",
}
VARIANTS = ["eager"] + list(COMPILE_MODES) + list(SDPA_BACKENDS)


def attention_math(torch, Q, K, V, causal):
    """softmax(Q·Kᵀ/√d [causal])·V in plain ops (torch without F.scaled_dot_product_attention)."""
    S = torch.matmul(Q, K.transpose(-2, -1)) * (1.0 / float(Q.shape[-1]) ** 0.5)
    if causal:
        s = Q.shape[-2]
        mask = torch.ones(s, K.shape[-2], dtype=torch.bool, device=Q.device).triu(1)
        S = S.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(S, dim=-1), V)


def workload_fn(torch, case):
    F = torch.nn.functional
    w = case["workload"]
    if w == "gemm":
        def gemm(A, B):
            return torch.matmul(A, B)
        return gemm
    if w == "mlp":
        def mlp(X, W1, b1, W2, b2):
            G = F.gelu(torch.addmm(b1, X, W1))  # approximate="none": the exact erf form
            return torch.addmm(b2, G, W2)
        return mlp
    if w == "attention":
        causal = bool(int(case["params"].get("causal", 0)))
        if not hasattr(F, "scaled_dot_product_attention"):  # torch < 2.0
            def attention_plain(Q, K, V):
                return attention_math(torch, Q, K, V, causal)
            return attention_plain

        def attention(Q, K, V):
            return F.scaled_dot_product_attention(Q, K, V, is_causal=causal)
        return attention
    if w == "block":
        p = case["params"]
        causal, heads = bool(int(p["causal"])), int(p["heads"])

        def block(X, ln1_w, ln1_b, Wq, Wk, Wv, Wo, ln2_w, ln2_b, W1, b1, W2, b2):
            b, l, h = X.shape
            A = F.layer_norm(X, (h,), ln1_w, ln1_b, 1e-5)

            def split(y):
                return y.view(b, l, heads, h // heads).transpose(1, 2)
            Q, K, V = split(A @ Wq), split(A @ Wk), split(A @ Wv)
            if hasattr(F, "scaled_dot_product_attention"):
                att = F.scaled_dot_product_attention(Q, K, V, is_causal=causal)
            else:
                att = attention_math(torch, Q, K, V, causal)
            R = X + att.transpose(1, 2).reshape(b, l, h) @ Wo
            N = F.layer_norm(R, (h,), ln2_w, ln2_b, 1e-5)
            return R + (F.gelu(N @ W1 + b1) @ W2 + b2)
        return block
    raise aa.Unavailable("workload %r is not supported by the torch adapter" % w)


def upcast(torch, fn, dtype):
    """fn computed in f32 on 16-bit tensors, the result rounded to `dtype` (the CPU path)."""
    def f32(*args):
        return fn(*[a.float() for a in args]).to(dtype)
    return f32


# ---------------------------------------------------------------------------------------------
# py:MODULE:FUNCTION

PY_PREFIX = "py:"
# flags of each workload passed as keywords: (keyword, parameter, converter)
PY_FLAGS = {"attention": [("causal", "causal", lambda v: bool(int(v)))],
            "block": [("heads", "heads", int), ("causal", "causal", lambda v: bool(int(v)))]}


class PyCallableError(Exception):
    """A per-case error of a py: callable: its message is the reply's, as it is."""


def exception_line(e):
    """'Type: first line [at file:line in fn]', the location being the last frame outside
    Python's import machinery."""
    first = str(e).strip().splitlines()
    text = type(e).__name__ + (": " + first[0] if first else "")
    frames = [f for f in traceback.extract_tb(e.__traceback__) if not f.filename.startswith("<frozen")]
    if frames and not isinstance(e, (ModuleNotFoundError, SyntaxError)):
        f = frames[-1]
        text += " [at %s:%d in %s]" % (os.path.basename(f.filename), f.lineno, f.name)
    return aa.one_line(text, 700)


def resolve_callable(variant):
    """(callable, "MODULE:FUNCTION") of a "py:MODULE:FUNCTION" variant; PyCallableError with a
    one-line message when the module cannot be imported or has no such attribute."""
    spec = variant[len(PY_PREFIX):]
    module, sep, attr = spec.partition(":")
    if not sep or not module.strip() or not attr.strip() or ":" in attr:
        raise PyCallableError("%s: a Python callable is named py:MODULE:FUNCTION (e.g. py:my_pkg.kernels:sdpa)" % variant)
    try:
        obj = importlib.import_module(module)
    except BaseException as e:  # noqa: BLE001 - SystemExit in a module's top level too
        traceback.print_exc(file=sys.stderr)
        raise PyCallableError("%s: cannot import %s: %s" % (variant, module, exception_line(e)))
    where = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PyCallableError("%s: %s has no attribute %r (from %s)" % (
                variant, where, part, getattr(sys.modules.get(module), "__file__", "?")))
        except Exception as e:
            raise PyCallableError("%s: cannot get %s.%s: %s" % (variant, where, part, exception_line(e)))
        where += "." + part
    if not callable(obj):
        raise PyCallableError("%s: %s is a %s, not callable" % (variant, where, type(obj).__name__))
    return obj, spec


def takes_out(fn):
    try:
        return "out" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def dtype_label(dt):
    return {"torch.float32": "f32", "torch.float16": "f16", "torch.bfloat16": "bf16"}.get(str(dt), str(dt).replace("torch.", ""))


def device_label(dev):
    return str(dev)


class PyCall:
    """The user's callable bound to the case: call() makes one call with the inputs, the flags
    and `out`; check(result, what) validates a result."""

    def __init__(self, torch, case, device, fn, label, args):
        self.torch, self.case, self.device, self.fn, self.label, self.args = torch, case, device, fn, label, args
        params = case["params"]
        self.kwargs = {kw: conv(params[p]) for kw, p, conv in PY_FLAGS.get(case["workload"], []) if p in params}
        spec = case["output"]
        self.shape = [int(x) for x in spec["shape"]]
        self.dtype = aa.torch_dtype(torch, spec["dtype"])
        self.out = None
        if takes_out(fn):
            self.out = torch.full(self.shape, float("nan"), dtype=self.dtype, device=device)
            self.kwargs["out"] = self.out

    def __call__(self):
        try:
            r = self.fn(*self.args, **self.kwargs)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            raise PyCallableError("%s raised %s" % (self.label, exception_line(e))) from e
        if r is None and self.out is not None:
            return self.out
        return r

    def check(self, r):
        torch = self.torch
        if not isinstance(r, torch.Tensor):
            raise PyCallableError("%s returned %s, not a torch.Tensor" % (self.label, type(r).__name__))
        if list(r.shape) != self.shape or r.dtype != self.dtype or r.device != self.device:
            raise PyCallableError("%s returned shape %s %s on %s; expected %s %s on %s" % (
                self.label, list(r.shape), dtype_label(r.dtype), device_label(r.device),
                self.shape, dtype_label(self.dtype), device_label(self.device)))
        return r

    def agree(self, ref, r, when):
        """PyCallableError when `r` differs from `ref` (same inputs) by more than a few units of
        the dtype's rounding."""
        torch = self.torch
        a, b = ref.float(), r.float()
        eps = torch.finfo(self.dtype).eps
        tol = 16 * eps * (1.0 + a.abs())
        # NaN on both sides, or the same infinity (inf - inf is NaN), agree: the oracle judges them.
        bad = ~((a - b).abs() <= tol) & ~(torch.isnan(a) & torch.isnan(b)) & ~(torch.isinf(a) & (a == b))
        n = int(bad.sum())
        if n:
            idx = [int(i) for i in bad.nonzero()[0]]
            raise PyCallableError("%s is not deterministic: %s on the same inputs differ at %s: %.6g then %.6g "
                                  "(%d of %d elements differ by more than 16 ulp)" % (
                                      self.label, when, idx, float(a[tuple(idx)]), float(b[tuple(idx)]), n, a.numel()))


# ---------------------------------------------------------------------------------------------


# the headers of torch's SDPA warnings, by pinned backend
SDPA_HEADERS = {
    "FLASH_ATTENTION": "flash attention",
    "EFFICIENT_ATTENTION": "memory efficient",
    "CUDNN_ATTENTION": "cudnn attention",
    "MATH": "math",
}


def sdpa_reasons(messages, backend):
    """torch's reasons why the pinned `backend` was not used, from its warnings: each backend's
    header ("Flash attention kernel not used because:") is followed by its reasons."""
    groups, header = [], None
    for m in messages:
        m = re.sub(r"\s*\(Triggered internally at [^)]*\)\.?", "", aa.one_line(m, 2000)).strip()
        if not m:
            continue
        if m.endswith("not used because:"):
            header = m
            groups.append((header, []))
        elif groups:
            groups[-1][1].append(m)
        else:
            groups.append(("", [m]))
    want = SDPA_HEADERS.get(backend, "").lower()
    picked = [(h, r) for h, r in groups if want and h.lower().startswith(want)]
    if not picked:  # unknown layout: everything but the other backends' "runtime disabled"
        picked = [(h, [x for x in r if "runtime disabled" not in x]) for h, r in groups]
    parts = []
    for h, r in picked:
        if r:
            parts.append((h + " " if h else "") + " ".join(dict.fromkeys(r)))
    return "; ".join(parts)


def no_kernel_reason(exc, caught, backend):
    """torch's reason why the pinned SDPA backend cannot run the case, or None when `exc` is
    not torch's "No available kernel"."""
    if "No available kernel" not in str(exc):
        return None
    return sdpa_reasons([str(w.message) for w in caught], backend) or aa.one_line(exc)


def run(case):
    try:
        return run_case(case)
    except PyCallableError as e:
        return aa.error_reply(str(e))


def run_case(case):
    variant = case.get("variant") or "eager"
    is_py = variant.startswith(PY_PREFIX)
    if not is_py and variant not in VARIANTS:
        raise aa.Unavailable("unknown torch variant %r (known: %s, py:MODULE:FUNCTION)" % (variant, ", ".join(VARIANTS)))
    if variant in SDPA_BACKENDS and case["workload"] != "attention":
        raise aa.Unavailable("variant %s runs the attention workload only" % variant)
    if case["workload"] not in aa.INPUT_NAMES:
        raise aa.Unavailable("workload %r is not supported by the torch adapter" % case["workload"])
    aa.check_dtype(case)
    torch = aa.import_torch()
    on_cpu = str(case["device"]) == "cpu"
    if on_cpu and variant != "eager" and not is_py:
        raise aa.Unavailable("variant %s runs on CUDA devices only (device is cpu)" % variant)
    device = aa.torch_device(case, allow_cpu=True)
    settings = aa.apply_torch_precision(case, cpu=on_cpu)
    aa.fresh_input_specs(case)  # a malformed fresh_inputs is the case's error before any work

    inputs = aa.load_torch_inputs(case, device)
    args = [inputs[n] for n in aa.INPUT_NAMES[case["workload"]]]
    notes = {}

    pycall = None
    if is_py:
        fn, spec = resolve_callable(variant)
        pycall = PyCall(torch, case, device, fn, variant, args)
        notes["python.callable"] = spec
        if pycall.out is not None:
            notes["python.out_argument"] = "True"
    else:
        fn = workload_fn(torch, case)
        if on_cpu and case["dtype"] in ("f16", "bf16"):
            # The workloads accumulate in fp32; torch's CPU kernels lack f16 (torch < 2) or
            # accumulate bf16 matmuls in bf16, so on the CPU eager computes in f32.
            fn = upcast(torch, fn, aa.torch_dtype(torch, case["dtype"]))
            notes["torch.cpu_16bit"] = "computed in f32, rounded to %s" % case["dtype"]
    before_call = None
    if variant in COMPILE_MODES:
        # The inputs keep fixed addresses for the whole run, as a model's weights and
        # persistent buffers do, so the CUDA-graph modes (reduce-overhead, and max-autotune,
        # which enables CUDA graphs) need not copy them into the graph's own buffers. Even so,
        # on an H100 (2026-11-22) both modes timed the mlp at 107-110 us against 45 us for
        # eager and compile-default; the cause is not established (see bench/BENCHMARKS.md).
        mark_static = getattr(getattr(torch, "_dynamo", None), "mark_static_address", None)
        if mark_static is not None:
            for a in args:
                mark_static(a)
        mode = COMPILE_MODES[variant]
        fn = torch.compile(fn, mode=mode, dynamic=False, fullgraph=True)
        if mode == "reduce-overhead":
            mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)
            if mark is not None:
                before_call = mark

    if pycall is not None:
        call = pycall
    else:
        def call():
            return fn(*args)

    ctx = None
    if variant in SDPA_BACKENDS:
        from torch.nn.attention import SDPBackend, sdpa_kernel

        ctx = sdpa_kernel(getattr(SDPBackend, SDPA_BACKENDS[variant]))
        ctx.__enter__()
        # Probe once with the reasons recorded: a backend that cannot run the case is
        # "unavailable" with torch's reason, not an error.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                call()
                torch.cuda.synchronize(device)
            except RuntimeError as e:
                reason = no_kernel_reason(e, caught, SDPA_BACKENDS[variant])
                if reason is not None:
                    raise aa.Unavailable("torch SDPA %s cannot run this case: %s" % (SDPA_BACKENDS[variant], reason))
                raise
    fresh = False
    mode = "host" if on_cpu else "cold"
    try:
        first = None
        if pycall is not None:
            # Validation, untimed: the first call's result, and a second call that must agree.
            r = pycall.check(call())
            aa.torch_sync(device)
            first = r.detach().clone()
            r = pycall.check(call())
            aa.torch_sync(device)
            pycall.agree(first, r, "the first two calls")
        if case["purpose"] == "check":
            if before_call:
                before_call()
            out, peak = aa.torch_check_call(call, device)
            samples = []
        elif case["purpose"] == "profile":
            out = aa.profile_calls(lambda: (before_call and before_call(), call())[1],
                                   lambda: aa.torch_sync(device), case)
            samples, peak = [], 0
        elif on_cpu:
            samples, out, _reason = aa.time_host(call, lambda: None, case)
            peak = 0
        else:
            samples, out, peak, _reason = aa.time_cold(call, case, device, before_call=before_call)
        if pycall is not None:
            pycall.agree(first, pycall.check(out), "the first call and the last timed call"
                         if samples else "the first call and the call written")
        def before_fresh():
            # Into a poisoned output, as assay's own recheck: a callable that writes `out` only
            # when it finds it poisoned must compute the fresh call.
            if pycall is not None and pycall.out is not None:
                pycall.out.fill_(float("nan"))
            if before_call:
                before_call()

        fresh_out, fresh = aa.torch_fresh_call(call, case, inputs, device, before_call=before_fresh)
        if fresh:
            out = fresh_out if pycall is None else pycall.check(fresh_out)
        aa.write_torch_output(case, out)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)

    versions = aa.torch_versions(device)
    versions.update(settings)
    versions.update(notes)
    versions["torch.variant"] = variant
    if variant in SDPA_BACKENDS:
        versions["torch.sdpa_backend"] = SDPA_BACKENDS[variant]
    return aa.ok_reply(case, mode, samples, peak_memory_bytes=peak, versions=versions, fresh_inputs=fresh)


if __name__ == "__main__":
    aa.main(run)
