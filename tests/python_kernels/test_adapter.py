#!/usr/bin/env python3
"""The torch adapter's py:MODULE:FUNCTION variant and the fresh-inputs recheck, on the CPU:
every planted callable of planted_kernels.py is run through the adapter (in-process, and a few
as assay runs it: a subprocess, the case on stdin) and each broken one must be caught, by the
adapter's reply or by the check of its output against the fp64 reference (what assay's check
and recheck do). Exits 0 when all pass, 1 otherwise, 77 without torch.

  python3 tests/python_kernels/test_adapter.py [-v]
"""
import re
import sys
import tempfile
import time

import support
from support import Case

VERBOSE = "-v" in sys.argv
failures = []
count = [0]


def expect(name, cond, detail):
    count[0] += 1
    if cond:
        if VERBOSE:
            print("ok    %s" % name)
    else:
        failures.append(name)
        print("FAIL  %s: %s" % (name, detail))


def run(c, subprocess=False):
    return (support.run_subprocess if subprocess else support.run_in_process)(c.case)


def expect_ok(name, c, reply, ref=None, fresh=None):
    if reply.get("status") != "ok":
        expect(name, False, "reply %s" % reply)
        return False
    bad = c.mismatch(ref)
    expect(name + ": output", bad is None, bad)
    if fresh is not None:
        expect(name + ": fresh_inputs flag", reply.get("fresh_inputs", False) is fresh, "reply %s" % reply)
    return bad is None


def expect_error(name, reply, pattern):
    ok = reply.get("status") == "error" and re.search(pattern, reply.get("message", "")) is not None
    expect(name, ok, "expected error matching %r, got %s" % (pattern, reply))
    if VERBOSE and reply.get("status") == "error":
        print("      message: %s" % reply["message"])


def main():
    t0 = time.time()
    tmp = tempfile.mkdtemp(prefix="assay-pykernels-")
    M = "py:planted_kernels:"
    odd = {"b": 1, "h": 2, "s": 33, "d": 16, "causal": 1}
    even = {"b": 1, "h": 2, "s": 32, "d": 16, "causal": 0}

    # --- correct callables pass, through every path
    c = Case(tmp, M + "correct", params=odd, fresh=True, tag="correct-sub")
    r = run(c, subprocess=True)
    expect_ok("correct (subprocess, measure, fresh inputs) matches the fresh reference", c, r, c.fresh_ref, fresh=True)
    expect("correct: reply fields", r.get("mode") == "host" and len(r.get("samples_ms", [])) >= 3
           and r.get("versions", {}).get("python.callable") == "planted_kernels:correct"
           and "summary_ms" in r, "reply %s" % r)
    for dt in ("f32", "f16", "bf16"):
        c = Case(tmp, M + "correct", dtype=dt, params=odd, purpose="check", tag="correct-check-" + dt)
        expect_ok("correct check %s" % dt, c, run(c), fresh=False)
    c = Case(tmp, M + "correct", params=odd, tag="correct-nofresh")
    expect_ok("correct without fresh inputs: the last timed call's output, no flag", c, run(c), fresh=False)
    c = Case(tmp, M + "Kernels.sdpa", dtype="bf16", params=even, fresh=True, tag="dotted")
    expect_ok("a dotted attribute (Kernels.sdpa)", c, run(c), c.fresh_ref, fresh=True)
    c = Case(tmp, M + "with_out", dtype="f16", params=odd, fresh=True, tag="with-out")
    r = run(c)
    expect_ok("out= filled, returns None", c, r, c.fresh_ref, fresh=True)
    expect("out= noted in versions", r.get("versions", {}).get("python.out_argument") == "True", r)
    c = Case(tmp, M + "gemm", workload="gemm", params={"m": 17, "n": 9, "k": 33}, fresh=True, tag="gemm")
    expect_ok("gemm callable", c, run(c), c.fresh_ref, fresh=True)
    c = Case(tmp, M + "mlp", workload="mlp", dtype="bf16", params={"batch": 5, "hidden": 24}, fresh=True, tag="mlp")
    expect_ok("mlp callable", c, run(c), c.fresh_ref, fresh=True)

    # --- the torch baseline on the CPU, with and without fresh inputs
    c = Case(tmp, "eager", params=odd, fresh=True, tag="eager-sub")
    expect_ok("eager attention (subprocess), fresh inputs", c, run(c, subprocess=True), c.fresh_ref, fresh=True)
    for w, p in (("gemm", {"m": 17, "n": 9, "k": 33}), ("mlp", {"batch": 5, "hidden": 24})):
        for dt in ("f16", "bf16"):
            c = Case(tmp, "eager", workload=w, dtype=dt, params=p, fresh=True, tag="eager-%s-%s" % (w, dt))
            expect_ok("eager %s %s on cpu" % (w, dt), c, run(c), c.fresh_ref, fresh=True)
    c = Case(tmp, "compile-default", params=odd, tag="compile-cpu")
    r = run(c)
    expect("compile variants are unavailable on cpu", r.get("status") == "unavailable", r)

    # --- broken callables are caught
    c = Case(tmp, M + "edge_wrong", params=even, purpose="check", tag="edge-even")
    expect_ok("edge_wrong passes at s=32 (a multiple of 16)", c, run(c))
    c = Case(tmp, M + "edge_wrong", params=odd, purpose="check", tag="edge-odd")
    r = run(c)
    expect("edge_wrong at s=33: the output fails the check", r.get("status") == "ok" and c.mismatch() is not None,
           "reply %s, mismatch %s" % (r, c.mismatch()))

    c = Case(tmp, M + "raises", params=odd, tag="raises-sub")
    expect_error("raises (subprocess)", run(c, subprocess=True),
                 r"^py:planted_kernels:raises raised ValueError: planted failure for head size 16 "
                 r"\[at planted_kernels\.py:\d+ in raises\]$")
    c = Case(tmp, M + "wrong_shape", params=odd, tag="shape")
    expect_error("wrong shape", run(c), r"^py:planted_kernels:wrong_shape returned shape \[1, 2, 32, 16\] f32 on cpu; "
                 r"expected \[1, 2, 33, 16\] f32 on cpu$")
    c = Case(tmp, M + "wrong_dtype", dtype="f16", params=odd, tag="dtype")
    expect_error("wrong dtype", run(c), r"^py:planted_kernels:wrong_dtype returned shape \[1, 2, 33, 16\] float64 on cpu; "
                 r"expected \[1, 2, 33, 16\] f16 on cpu$")
    c = Case(tmp, M + "returns_list", params=odd, tag="list")
    expect_error("returns a list", run(c), r"^py:planted_kernels:returns_list returned list, not a torch\.Tensor$")
    c = Case(tmp, M + "returns_none", params=odd, purpose="check", tag="none")
    expect_error("returns None without out=", run(c), r"returned NoneType, not a torch\.Tensor$")
    c = Case(tmp, M + "flaky", params=odd, tag="flaky")
    expect_error("nondeterministic (wrong on every other call)", run(c),
                 r"^py:planted_kernels:flaky is not deterministic: the first two calls on the same inputs differ at ")
    c = Case(tmp, M + "flaky", params=odd, purpose="check", tag="flaky-check")
    expect_error("nondeterministic, caught at the check too", run(c), r"flaky is not deterministic")

    c = Case(tmp, M + "caching", params=odd, tag="caching-nofresh")
    r = run(c)
    expect("caching without fresh inputs goes unnoticed (why fresh inputs exist)",
           r.get("status") == "ok" and c.mismatch() is None, "reply %s, mismatch %s" % (r, c.mismatch()))
    c = Case(tmp, M + "caching", params=odd, fresh=True, tag="caching-sub")
    r = run(c, subprocess=True)
    bad = c.mismatch(c.fresh_ref)
    expect("caching: caught by the recheck against the fresh inputs' reference",
           r.get("status") == "ok" and r.get("fresh_inputs") is True and bad is not None,
           "reply %s, mismatch with the fresh reference %s" % (r, bad))
    expect("caching: what it wrote is the stale (first inputs') result", c.mismatch() is None, c.mismatch())

    c = Case(tmp, M + "partial_out", params=odd, fresh=True, tag="partial")
    r = run(c)
    bad = c.mismatch(c.fresh_ref)
    expect("partial out=: the unwritten rows stay NaN and fail the check",
           r.get("status") == "ok" and bad is not None and "nan" in bad, "reply %s, mismatch %s" % (r, bad))

    # --- import and name failures
    expect_error("missing module (subprocess)", run(Case(tmp, "py:no_such_module_xyz:f", params=odd, tag="nomod"),
                                                   subprocess=True),
                 r"^py:no_such_module_xyz:f: cannot import no_such_module_xyz: ModuleNotFoundError: "
                 r"No module named 'no_such_module_xyz'$")
    expect_error("missing attribute", run(Case(tmp, M + "nope", params=odd, tag="noattr")),
                 r"^py:planted_kernels:nope: planted_kernels has no attribute 'nope'")
    expect_error("missing dotted attribute", run(Case(tmp, M + "Kernels.nope", params=odd, tag="noattr2")),
                 r"^py:planted_kernels:Kernels\.nope: planted_kernels\.Kernels has no attribute 'nope'")
    expect_error("not callable", run(Case(tmp, M + "not_callable", params=odd, tag="notcallable")),
                 r"planted_kernels\.not_callable is a int, not callable$")
    expect_error("module failing at import", run(Case(tmp, "py:broken_module:f", params=odd, tag="broken")),
                 r"^py:broken_module:f: cannot import broken_module: RuntimeError: planted import failure "
                 r"\[at broken_module\.py:\d+ in <module>\]$")
    expect_error("malformed name", run(Case(tmp, "py:planted_kernels", params=odd, tag="badname")),
                 r"py:MODULE:FUNCTION")

    # --- fresh_inputs that do not match the inputs
    c = Case(tmp, "eager", params=odd, fresh=True, tag="fresh-bad")
    c.case["fresh_inputs"][0] = dict(c.case["fresh_inputs"][0], shape=[1, 2, 32, 16])
    expect_error("fresh input of another shape", run(c), r"fresh input Q is f32 \[1, 2, 32, 16\], the input is f32")
    c = Case(tmp, "eager", params=odd, purpose="check", fresh=True, tag="fresh-check")
    expect_ok("fresh_inputs ignored on a check call", c, run(c), fresh=False)

    import shutil

    shutil.rmtree(tmp, ignore_errors=True)
    print("%d of %d expectations met (%.1f s)" % (count[0] - len(failures), count[0], time.time() - t0))
    return support.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
