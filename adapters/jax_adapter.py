#!/usr/bin/env python3
"""assay adapter for JAX/XLA (protocol "assay.adapter/1"), variant "jit": jax.jit of
  gemm       C = A·B                      (jnp.matmul, fp32 accumulation, cast to the input dtype)
  mlp        Y = GELU(X·W1 + b1)·W2 + b2  (jax.nn.gelu(approximate=False), the exact erf form)
  attention  O = softmax(Q·Kᵀ/√d [causal: j > i masked])·V, written out in jnp
JAX has no CUDA events: each sample is time.perf_counter around fn(...).block_until_ready(),
after a jitted write of a buffer of 2x the L2 size; the reply's mode is "host".
"""
import os
import sys

# Keep XLA from grabbing most of the GPU memory (must be set before jax is imported).
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import assay_adapter as aa  # noqa: E402

VARIANTS = ["jit"]


def import_jax():
    try:
        import jax  # noqa: F401
        import jax.numpy  # noqa: F401
        import numpy  # noqa: F401
    except Exception as e:
        raise aa.Unavailable("jax is not importable: " + aa.error_message(e))
    return jax


def gpu_device(jax, case):
    dev = str(case["device"])
    if dev == "cpu":
        raise aa.Unavailable("this adapter runs on CUDA devices only (device is cpu)")
    try:
        gpus = jax.devices("gpu")
    except Exception as e:
        raise aa.Unavailable("jax has no GPU device: " + aa.error_message(e))
    if not gpus:
        raise aa.Unavailable("jax has no GPU device (backend %s)" % jax.default_backend())
    try:
        idx = int(dev)
    except ValueError:
        raise aa.Unavailable("device %r is not a device index" % dev)
    for g in gpus:
        if getattr(g, "local_hardware_id", None) == idx:
            return g
    if 0 <= idx < len(gpus):
        return gpus[idx]
    raise aa.Unavailable("GPU %d does not exist for jax (%d visible)" % (idx, len(gpus)))


def np_dtype(name):
    import numpy as np

    if name == "bf16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype({"f32": np.float32, "f16": np.float16}[name])


def load_inputs(case, device):
    import jax

    out = {}
    for spec in case["inputs"]:
        a = aa.read_numpy(spec)
        if spec["dtype"] == "bf16":
            a = a.view(np_dtype("bf16"))
        out[spec["name"]] = jax.device_put(a, device)
    return out


def workload_fn(jax, case):
    import jax.numpy as jnp

    dt = np_dtype(case["dtype"])
    f32 = jnp.float32
    w = case["workload"]
    if w == "gemm":
        def gemm(A, B):
            return jnp.matmul(A, B, preferred_element_type=f32).astype(dt)
        return gemm
    if w == "mlp":
        def mlp(X, W1, b1, W2, b2):
            h = jnp.matmul(X, W1, preferred_element_type=f32) + b1.astype(f32)
            g = jax.nn.gelu(h, approximate=False).astype(dt)
            y = jnp.matmul(g, W2, preferred_element_type=f32) + b2.astype(f32)
            return y.astype(dt)
        return mlp
    if w == "attention":
        causal = bool(int(case["params"].get("causal", 0)))
        d = int(case["params"]["d"])
        scale = 1.0 / (d ** 0.5)

        def attention(Q, K, V):
            s = jnp.einsum("bhqd,bhkd->bhqk", Q, K, preferred_element_type=f32) * scale
            if causal:
                n = s.shape[-1]
                i = jnp.arange(s.shape[-2])[:, None]
                j = jnp.arange(n)[None, :]
                s = jnp.where(j > i, -jnp.inf, s)
            p = jax.nn.softmax(s, axis=-1)
            o = jnp.einsum("bhqk,bhkd->bhqd", p.astype(dt), V, preferred_element_type=f32)
            return o.astype(dt)
        return attention
    raise aa.Unavailable("workload %r is not supported by the jax adapter" % w)


def l2_bytes(device_index):
    """L2 size of the CUDA device through the driver API (libcuda), or 0."""
    try:
        import ctypes

        cu = ctypes.CDLL("libcuda.so.1")
        if cu.cuInit(0) != 0:
            return 0
        dev = ctypes.c_int()
        if cu.cuDeviceGet(ctypes.byref(dev), int(device_index)) != 0:
            return 0
        val = ctypes.c_int()
        CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
        if cu.cuDeviceGetAttribute(ctypes.byref(val), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev) != 0:
            return 0
        return int(val.value)
    except Exception:
        return 0


def versions(jax, device, case):
    v = aa.package_versions(["jax", "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin", "torch", "triton"])
    v = {k: x for k, x in v.items() if not (k.startswith("jax-cuda") and x == "absent")}
    v["jax"] = jax.__version__
    try:
        import jaxlib

        v["jaxlib"] = jaxlib.__version__
    except Exception:
        pass
    try:
        from jax._src.lib import cuda_versions

        if cuda_versions is not None:
            rt = cuda_versions.cuda_runtime_get_version()
            v["cuda"] = "%d.%d" % (rt // 1000, (rt % 1000) // 10)
    except Exception:
        pass
    v.setdefault("cuda", "unknown")
    v["gpu"] = getattr(device, "device_kind", str(device))
    try:
        v["jax.default_matmul_precision"] = str(jax.config.jax_default_matmul_precision)
    except Exception:
        v["jax.default_matmul_precision"] = "unknown"
    v["python"] = sys.version.split()[0]
    return v


def run(case):
    variant = case.get("variant") or "jit"
    if variant not in VARIANTS:
        raise aa.Unavailable("unknown jax variant %r (known: %s)" % (variant, ", ".join(VARIANTS)))
    aa.check_dtype(case)
    jax = import_jax()
    import jax.numpy as jnp
    import numpy as np

    if str(case["device"]) == "cpu":
        raise aa.Unavailable("this adapter runs on CUDA devices only (device is cpu)")
    prec = case.get("precision", {})
    if case["dtype"] == "f32" and not prec.get("tf32", False):
        jax.config.update("jax_default_matmul_precision", "highest")
    device = gpu_device(jax, case)

    inputs = load_inputs(case, device)
    args = [inputs[n] for n in aa.INPUT_NAMES[case["workload"]]]
    fn = jax.jit(workload_fn(jax, case))

    def call():
        out = fn(*args)
        out.block_until_ready()
        return out

    flush_bytes = 0
    if case["purpose"] == "check":
        out = call()
        samples = []
    elif case["purpose"] == "profile":
        out = aa.profile_calls(call, lambda: None, case)  # call() blocks until the result is ready
        samples = []
    else:
        idx = getattr(device, "local_hardware_id", None)
        l2 = l2_bytes(idx if idx is not None else int(case["device"]))
        nbytes = 2 * l2 if l2 > 0 else 256 << 20
        n = (nbytes + 3) // 4
        flush_bytes = 4 * n
        flush_fn = jax.jit(lambda x: x + 1.0, donate_argnums=0)
        buf = [jax.device_put(jnp.zeros((n,), jnp.float32), device)]

        def flush():
            buf[0] = flush_fn(buf[0])
            buf[0].block_until_ready()

        flush()
        samples, out, _reason = aa.time_host(call, flush, case)
        del buf[0]

    host = np.asarray(out)
    if case["dtype"] == "bf16":
        host = host.view(np.uint16)
    want = [int(x) for x in case["output"]["shape"]]
    if list(host.shape) != want:
        raise ValueError("output shape is %s, expected %s" % (list(host.shape), want))
    aa.write_bytes(case, np.ascontiguousarray(host).astype(host.dtype.newbyteorder("<"), copy=False).tobytes())

    peak = 0
    try:
        stats = device.memory_stats() or {}
        # the process's peak (XLA cannot reset it), less the flush buffer
        peak = max(0, stats.get("peak_bytes_in_use", 0) - flush_bytes)
    except Exception:
        pass
    return aa.ok_reply(case, "host", samples, peak_memory_bytes=peak, versions=versions(jax, device, case))


if __name__ == "__main__":
    aa.main(run)
