#!/usr/bin/env python3
"""`python3 -m assay_bench` (adapters/assay_bench/): usage errors exit 3; the verdict and exit
code from a results document (synthetic documents: all ok, a failed check, every case skipped,
--require-faster with CIs apart and overlapping); and, when an assay binary that accepts the
py: backend is at hand, two real runs on the CPU: a correct callable (exit 0) and one wrong at
a ragged shape (exit 1, the point named). Exits 77 without torch.

  python3 tests/python_kernels/test_assay_bench.py [ASSAY_BINARY]
"""
import io
import os
import subprocess
import sys
import tempfile

import support

sys.path.insert(0, support.ADAPTERS)
from assay_bench import cli  # noqa: E402

failures = []


def expect(name, cond, detail=""):
    print("%-4s %s" % ("ok" if cond else "FAIL", name))
    if not cond:
        failures.append(name)
        if detail:
            print("     " + str(detail)[-3000:])


def bench(args, assay=None):
    env = support.assay_env()
    env["PYTHONPATH"] = support.ADAPTERS
    cmd = [sys.executable, "-m", "assay_bench"] + args + (["--assay", assay] if assay else [])
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


def case(backend, status, median=None, lo=None, hi=None, s=33, reason=""):
    c = {"backend": backend, "bench": "tiny", "dtype": "f32", "params": {"s": s}, "status": status, "reason": reason}
    if median is not None:
        c["summary_ns"] = {"median": median, "median_ci_lo": lo, "median_ci_hi": hi}
    return c


def verdict(cases, require_faster=False):
    out = io.StringIO()
    code = cli.evaluate({"cases": cases}, "py:m:f", "torch", require_faster, out=out)
    return code, out.getvalue()


def main():
    hp = support.HERE
    # usage errors: 3
    for args, what in ((["attention"], "no callable"), (["conv", "m:f"], "unknown workload"),
                       (["attention", "nocolon"], "no colon"), (["attention", "m:f", "--device", "gpu7"], "bad device"),
                       (["attention", "m:f", "--shapes", "huge"], "unknown shape set"),
                       (["attention", "no_such_module_xyz:f", "--python-path", hp, "--device", "cpu"], "module not found")):
        p = bench(args)
        expect("usage: %s exits 3" % what, p.returncode == 3, p.stderr)

    # the verdict from a results document
    ok = [case("torch", "ok", 100, 95, 105), case("py:m:f", "ok", 50, 48, 52)]
    code, text = verdict(ok)
    expect("all ok: 0", code == 0, text)
    code, text = verdict(ok, require_faster=True)
    expect("faster with CIs apart, --require-faster: 0", code == 0, text)
    code, text = verdict([case("torch", "ok", 100, 95, 105), case("py:m:f", "ok", 98, 90, 104)], require_faster=True)
    expect("CIs overlap, --require-faster: 1, 'not faster'", code == 1 and "not faster" in text, text)
    code, text = verdict([case("torch", "ok", 100, 95, 105), case("py:m:f", "ok", 98, 90, 104)])
    expect("CIs overlap without --require-faster: 0", code == 0, text)
    code, text = verdict([case("torch", "ok", 100, 95, 105),
                          case("py:m:f", "check-failed", reason="fails=5/1056, max abs error 1.2 at [0, 0, 32, 0]")])
    expect("check-failed: 1, the point and the reason listed", code == 1 and "s=33" in text and "fails=5/1056" in text, text)
    for st in ("error", "crashed", "timeout", "implausible"):
        code, text = verdict([case("torch", "ok", 100, 95, 105), case("py:m:f", st, reason="why")])
        expect("%s: 1" % st, code == 1, text)
    code, text = verdict([case("torch", "skipped", reason="no torch"), case("py:m:f", "skipped", reason="no torch")])
    expect("every case skipped: 2", code == 2, text)

    # real runs
    assay = support.find_assay(sys.argv)
    if assay is None:
        print("SKIP (the runs): no assay binary")
    else:
        tmp = tempfile.mkdtemp(prefix="assay-bench-test-")
        base = ["--shapes", "tiny", "--device", "cpu", "--dtype", "f32", "--quick", "--python-path", hp]
        p = bench(["attention", "planted_kernels:correct", "--out", os.path.join(tmp, "a")] + base, assay)
        if True:
            expect("correct callable: exit 0", p.returncode == 0, p.stdout + p.stderr)
            p = bench(["attention", "planted_kernels:edge_wrong", "--out", os.path.join(tmp, "b")] + base, assay)
            expect("edge_wrong: exit 1, the point named", p.returncode == 1 and "check-failed" in p.stdout
                   and "s=33" in p.stdout, p.stdout + p.stderr)
            p = bench(["attention", "planted_kernels:correct", "--out", os.path.join(tmp, "c"), "--require-faster"] + base, assay)
            expect("--require-faster against torch: exit 0 or 1 with a verdict", p.returncode in (0, 1)
                   and ("faster than torch" in p.stdout or "NOT FASTER" in p.stdout), p.stdout + p.stderr)
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return support.verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
