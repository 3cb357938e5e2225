"""purpose "profile" (assay profile, docs/profile.md): the case's calls inside the profiler's
window. assay starts the adapter under `ncu --profile-from-start off`, so only the kernels
launched between cuProfilerStart and cuProfilerStop are profiled: the adapter's imports,
compilation, autotuning and the untimed first call stay out. The driver's own entry points are
used (ctypes on libcuda), so any stack on the GPU (torch, JAX, CuPy) can open the window."""

import ctypes
import contextlib

_libcuda = None


def _driver():
    global _libcuda
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
    return _libcuda


@contextlib.contextmanager
def profiler_window():
    """Opens the profiler's window for the block (cuProfilerStart/Stop of the current context)."""
    lib = _driver()
    rc = lib.cuProfilerStart()
    if rc != 0:
        raise RuntimeError("cuProfilerStart failed with CUresult %d" % rc)
    try:
        yield
    finally:
        lib.cuProfilerStop()


def profile_calls(call, sync, case):
    """One untimed call, then the case's profile.calls calls inside the window; each call
    returns the output, `sync()` waits for the device. Returns the last call's output."""
    calls = int(case.get("profile", {}).get("calls", 1))
    if calls < 1:
        raise ValueError("profile.calls is %d; at least 1" % calls)
    out = call()
    sync()
    with profiler_window():
        for _ in range(calls):
            out = None
            out = call()
        sync()
    return out
