#!/usr/bin/env python3
"""assay adapter for PyTorch (protocol "assay.adapter/1"); the variant comes in case["variant"]:
  eager                     the workload in plain torch ops
  compile-default           torch.compile(fn)                        (compiled in the priming call)
  compile-max-autotune      torch.compile(fn, mode="max-autotune")
  compile-reduce-overhead   torch.compile(fn, mode="reduce-overhead")  (CUDA graphs)
  sdpa-flash | sdpa-efficient | sdpa-cudnn | sdpa-math
                            attention only: scaled_dot_product_attention pinned to one backend
Workloads: gemm C = A·B (torch.matmul); mlp Y = GELU(X·W1 + b1)·W2 + b2 (addmm, exact-erf gelu,
addmm); attention O = softmax(Q·Kᵀ/√d [causal])·V (F.scaled_dot_product_attention).
"""
import os
import re
import sys
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

        def attention(Q, K, V):
            return F.scaled_dot_product_attention(Q, K, V, is_causal=causal)
        return attention
    raise aa.Unavailable("workload %r is not supported by the torch adapter" % w)


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
    variant = case.get("variant") or "eager"
    if variant not in VARIANTS:
        raise aa.Unavailable("unknown torch variant %r (known: %s)" % (variant, ", ".join(VARIANTS)))
    if variant in SDPA_BACKENDS and case["workload"] != "attention":
        raise aa.Unavailable("variant %s runs the attention workload only" % variant)
    aa.check_dtype(case)
    torch = aa.import_torch()
    device = aa.torch_device(case)
    settings = aa.apply_torch_precision(case)

    fn = workload_fn(torch, case)
    inputs = aa.load_torch_inputs(case, device)
    args = [inputs[n] for n in aa.INPUT_NAMES[case["workload"]]]

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
    try:
        if case["purpose"] == "check":
            if before_call:
                before_call()
            out, peak = aa.torch_check_call(call, device)
            samples = []
        else:
            samples, out, peak, _reason = aa.time_cold(call, case, device, before_call=before_call)
        aa.write_torch_output(case, out)
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)

    versions = aa.torch_versions(device)
    versions.update(settings)
    versions["torch.variant"] = variant
    if variant in SDPA_BACKENDS:
        versions["torch.sdpa_backend"] = SDPA_BACKENDS[variant]
    return aa.ok_reply(case, "cold", samples, peak_memory_bytes=peak, versions=versions)


if __name__ == "__main__":
    aa.main(run)
