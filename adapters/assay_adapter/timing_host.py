"""Host-clock timing (JAX and other stacks without CUDA events)."""
import time

from .stopping import measure_loop


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
