"""Timing with torch the way assay's cold mode does (CUDA events around one call, L2 flushed,
the stream held while the call is enqueued), and the torch helpers around it: device,
inputs, output, precision policy, versions. torch is imported inside the functions."""
import sys
import time

from .case import fresh_input_specs, package_versions, read_numpy, write_bytes
from .errors import Unavailable, error_message, one_line
from .stopping import measure_loop


def import_torch():
    try:
        import torch  # noqa: F401
    except Exception as e:
        raise Unavailable("torch is not importable: " + error_message(e))
    return torch


def torch_device(case, allow_cpu=False):
    """The CUDA device of the case, made current; Unavailable without CUDA. Device "cpu" is
    torch.device("cpu") when `allow_cpu`, Unavailable otherwise."""
    torch = import_torch()
    dev = str(case["device"])
    if dev == "cpu":
        if allow_cpu:
            return torch.device("cpu")
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


def _read_torch(spec, device):
    torch = import_torch()
    a = read_numpy(spec)
    t = torch.from_numpy(a.view("int16") if spec["dtype"] == "bf16" else a)
    if spec["dtype"] == "bf16":
        t = t.view(torch.bfloat16)
    return t.to(device).contiguous()


def load_torch_inputs(case, device):
    """{name: tensor on device} for every input of the case, in the file's dtype."""
    return {spec["name"]: _read_torch(spec, device) for spec in case["inputs"]}


def torch_sync(device):
    """Waits for the device (a no-op on the CPU)."""
    torch = import_torch()
    if getattr(device, "type", "cuda") == "cuda":
        torch.cuda.synchronize(device)


def load_fresh_into(case, inputs):
    """Copies the case's "fresh_inputs" (see case.fresh_input_specs) INTO the tensors of
    `inputs` ({name: tensor}, as load_torch_inputs gave) in place, so their addresses stay (a
    compiled function or a CUDA graph that holds them keeps working). Returns the names
    copied; [] when the case has no fresh inputs."""
    names = []
    for spec in fresh_input_specs(case):
        dst = inputs[spec["name"]]
        with import_torch().no_grad():
            dst.copy_(_read_torch(spec, dst.device))
        names.append(spec["name"])
    return names


def torch_fresh_call(call, case, inputs, device, before_call=None):
    """After the timed loop: when the case has "fresh_inputs", copies them into `inputs` in
    place and makes one more (untimed) call; returns (its output, True). (None, False) when the
    case has none."""
    if not load_fresh_into(case, inputs):
        return None, False
    torch_sync(device)
    if before_call:
        before_call()
    out = call()
    torch_sync(device)
    return out, True


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


def apply_torch_precision(case, cpu=False):
    """The run's precision policy (case["precision"]); returns the settings for "versions".
    `cpu`: the case runs on the CPU, where the CUDA matmul settings do not apply, so one this
    torch does not have is reported (versions["torch.precision_not_applied"]), not an error."""
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
    if problems and not cpu:
        raise RuntimeError("cannot apply the precision policy: " + "; ".join(problems))
    rep = torch_precision_report()
    if problems:
        rep["torch.precision_not_applied"] = "; ".join(problems)
    return rep


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
            if key == "torch.matmul.fp32_precision":
                try:  # older torch's matmul settings raise AssertionError on unknown names
                    if not hasattr(torch.backends.cuda.matmul, "fp32_precision"):
                        continue
                except Exception:
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
    if getattr(device, "type", "cuda") == "cpu":
        import platform

        v["device"] = "cpu"
        v["cpu"] = platform.processor() or platform.machine()
        v["torch.num_threads"] = str(torch.get_num_threads())
    else:
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
    """purpose "check": one call; returns (output, peak_memory_bytes); 0 bytes on the CPU."""
    torch = import_torch()
    if getattr(device, "type", "cuda") == "cpu":
        return fn(), 0
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

