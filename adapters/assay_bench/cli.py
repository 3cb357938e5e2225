"""The command line of `python3 -m assay_bench` (see __init__.py)."""
import argparse
import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

from . import shapes

PKG = os.path.dirname(os.path.abspath(__file__))
ADAPTERS = os.path.dirname(PKG)
EXIT_OK, EXIT_FAIL, EXIT_NOTHING, EXIT_USAGE = 0, 1, 2, 3
FAILED_STATUSES = ("check-failed", "error", "crashed", "timeout", "implausible", "interrupted")


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 3 on bad usage, as assay does
        self.print_usage(sys.stderr)
        print("assay_bench: error: %s" % message, file=sys.stderr)
        sys.exit(EXIT_USAGE)


def parse_args(argv):
    p = Parser(prog="python3 -m assay_bench",
               description="Check and time a Python callable (py:MODULE:FUNCTION) against a baseline with assay.")
    p.add_argument("workload", choices=sorted(shapes.SETS), help="the workload the callable computes")
    p.add_argument("callable", metavar="MODULE:FUNCTION", help="e.g. kernels:sdpa or my_pkg.ops:Attention.forward")
    p.add_argument("--shapes", default=None, help="shape set: fuzz (GPU), small (CPU, CI) or tiny (attention: one point, for tests); default fuzz, small on cpu")
    p.add_argument("--dtype", choices=["f16", "bf16", "f32"], default=None, help="default f16, f32 on cpu")
    p.add_argument("--device", default="cuda", help="cuda (device 0), a CUDA device index, or cpu")
    p.add_argument("--baseline", default="torch", help="the baseline backend (default torch)")
    p.add_argument("--out", default="assay-bench-out", help="folder for the suite and the results (default ./assay-bench-out)")
    p.add_argument("--assay", default=None, help="the assay binary (default $ASSAY_BIN, PATH, build/current/bin/assay)")
    p.add_argument("--python-path", action="append", default=[], metavar="DIR",
                   help="folder where MODULE is found (repeatable; default the current folder)")
    p.add_argument("--require-faster", action="store_true",
                   help="fail unless the callable is faster than the baseline at every point (95%% CIs apart)")
    p.add_argument("--quick", action="store_true", help="few samples, wide CI, no history: correctness and plumbing")
    a = p.parse_args(argv)
    if not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*", a.callable) or ".." in a.callable:
        p.error("the callable is MODULE:FUNCTION (a dotted module name, a dotted attribute), got %r" % a.callable)
    dev = a.device.strip().lower()
    if dev == "cuda":
        dev = "0"
    elif dev.startswith("cuda:"):
        dev = dev[5:]
    if dev != "cpu" and not dev.isdigit():
        p.error("--device is cuda, cpu or a CUDA device index, got %r" % a.device)
    a.device = dev
    if a.shapes is None:
        a.shapes = "small" if dev == "cpu" else "fuzz"
    if a.shapes not in shapes.SETS[a.workload]:
        p.error("--shapes %s: %s has the sets %s" % (a.shapes, a.workload, ", ".join(sorted(shapes.SETS[a.workload]))))
    if a.dtype is None:
        a.dtype = "f32" if dev == "cpu" else "f16"
    if not re.fullmatch(r"[\w@.+-]+", a.baseline):
        p.error("--baseline %r is not a backend name" % a.baseline)
    a.python_path = [os.path.abspath(d) for d in (a.python_path or [os.getcwd()])]
    for d in a.python_path:
        if not os.path.isdir(d):
            p.error("--python-path %s is not a folder" % d)
    return a


def find_assay(explicit):
    cands = []
    if explicit:
        cands.append(explicit)
    elif os.environ.get("ASSAY_BIN"):
        cands.append(os.environ["ASSAY_BIN"])
    else:
        w = shutil.which("assay")
        if w:
            cands.append(w)
        for root in (os.path.dirname(ADAPTERS), ADAPTERS):
            cands.append(os.path.join(root, "build", "current", "bin", "assay"))
        # An installed prefix: ADAPTERS is <prefix>/share/assay/adapters.
        cands.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(ADAPTERS))), "bin", "assay"))
    for c in cands:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    if explicit or os.environ.get("ASSAY_BIN"):
        raise UsageError("assay binary %s is not an executable file" % cands[0])
    return None


def module_found(module, path):
    """Whether the top-level package of `module` is found on `path` + sys.path (nothing is
    imported or executed)."""
    top = module.split(".")[0]
    saved = list(sys.path)
    try:
        sys.path[:0] = path
        return importlib.util.find_spec(top) is not None
    except Exception:
        return True  # let the adapter report it
    finally:
        sys.path[:] = saved


def child_env(python_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(python_path + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("ASSAY_ADAPTERS_DIR", ADAPTERS)
    # assay starts `python3 adapters/torch_adapter.py`: the Python running this command (the one
    # with the callable's dependencies) comes first on PATH when its folder has a python3
    exe_dir = os.path.dirname(os.path.abspath(sys.executable))
    if os.path.isfile(os.path.join(exe_dir, "python3")):
        env["PATH"] = exe_dir + os.pathsep + env.get("PATH", "")
    return env


def point_key(case):
    return (case.get("bench"), case.get("dtype"), tuple(sorted(case.get("params", {}).items())))


def point_name(case):
    return "%s %s" % (case.get("dtype"), ",".join("%s=%s" % kv for kv in sorted(case.get("params", {}).items())))


def fmt_us(ns):
    return "%.1f us" % (ns / 1e3) if ns is not None else "-"


def evaluate(doc, subject, baseline, require_faster, out=sys.stdout):
    """(exit code, lines) from a results document."""
    cases = doc.get("cases", [])
    mine = [c for c in cases if c.get("backend") == subject]
    base = {point_key(c): c for c in cases if c.get("backend") == baseline}
    problems = []
    for c in cases:
        if c.get("status") in FAILED_STATUSES:
            problems.append("%s %s: %s: %s" % (c.get("backend"), point_name(c), c.get("status"), c.get("reason", "")))
    ran = [c for c in mine if c.get("status") != "skipped"]
    rows = []
    slower = []
    for c in mine:
        b = base.get(point_key(c))
        s, bs = c.get("summary_ns") or {}, (b or {}).get("summary_ns") or {}
        verdict = c.get("status")
        if c.get("status") == "ok" and b and b.get("status") == "ok" and s and bs:
            sp = bs["median"] / s["median"] if s.get("median") else None
            faster = s.get("median_ci_hi", s["median"]) < bs.get("median_ci_lo", bs["median"])
            slower_sure = s.get("median_ci_lo", s["median"]) > bs.get("median_ci_hi", bs["median"])
            verdict = "faster" if faster else ("slower" if slower_sure else "same (CIs overlap)")
            if require_faster and not faster:
                slower.append("%s: not faster: %s [%s, %s] vs %s %s [%s, %s]" % (
                    point_name(c), fmt_us(s["median"]), fmt_us(s.get("median_ci_lo")), fmt_us(s.get("median_ci_hi")),
                    baseline, fmt_us(bs["median"]), fmt_us(bs.get("median_ci_lo")), fmt_us(bs.get("median_ci_hi"))))
            rows.append((point_name(c), fmt_us(bs["median"]), fmt_us(s["median"]), "%.2fx" % sp if sp else "-", verdict))
        else:
            if require_faster and c.get("status") == "ok":
                slower.append("%s: no baseline time to compare with (%s: %s)" % (
                    point_name(c), baseline, (b or {}).get("status", "absent")))
            rows.append((point_name(c), fmt_us(bs.get("median")) if bs else "-", fmt_us(s.get("median")) if s else "-",
                         "-", verdict + (": " + c.get("reason", "") if c.get("reason") else "")))
    w = max([len(r[0]) for r in rows] + [5])
    print("\n%-*s  %12s  %12s  %8s  %s" % (w, "point", baseline, "callable", "speedup", "verdict"), file=out)
    for r in rows:
        print("%-*s  %12s  %12s  %8s  %s" % ((w,) + r), file=out)
    if problems:
        print("\nFAILED (%d):" % len(problems), file=out)
        for p in problems:
            print("  " + p, file=out)
    if slower:
        print("\nNOT FASTER (%d, --require-faster):" % len(slower), file=out)
        for p in slower:
            print("  " + p, file=out)
    if problems or slower:
        return EXIT_FAIL
    if not ran:
        reasons = sorted({c.get("reason", "") for c in mine})
        print("\nnothing ran: every case of %s was skipped (%s)" % (subject, "; ".join(reasons)[:500]), file=out)
        return EXIT_NOTHING
    print("\nall %d point(s) of %s passed their check%s" % (
        len(ran), subject, " and were faster than " + baseline if require_faster else ""), file=out)
    return EXIT_OK


def main(argv=None):
    a = parse_args(sys.argv[1:] if argv is None else argv)
    module, _, func = a.callable.partition(":")
    subject = "py:" + a.callable
    if not module_found(module, a.python_path):
        print("assay_bench: module %s is not found in %s nor on sys.path (pass --python-path DIR)" % (
            module, ", ".join(a.python_path)), file=sys.stderr)
        return EXIT_USAGE
    try:
        assay = find_assay(a.assay)
    except UsageError as e:
        print("assay_bench: %s" % e, file=sys.stderr)
        return EXIT_USAGE
    if assay is None:
        print("assay_bench: no assay binary (pass --assay PATH, set ASSAY_BIN, put it on PATH, or build it: "
              "./scripts/setup.sh)", file=sys.stderr)
        return EXIT_NOTHING

    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    name = re.sub(r"[^\w.-]", "_", "assay-bench-%s-%s" % (a.workload, a.callable.replace(":", ".")))[:100]
    suite = os.path.join(out, "suite.toml")
    text = shapes.suite_toml(name, a.workload, a.shapes, a.dtype, [a.baseline, subject], a.baseline,
                             a.python_path, a.quick)
    with open(suite + ".tmp", "w") as f:
        f.write(text)
    os.replace(suite + ".tmp", suite)
    results_dir = os.path.join(out, "results")
    before = set(glob.glob(os.path.join(results_dir, "*.json")))
    cmd = [assay, "run", suite, "--device", a.device, "--out", results_dir]
    if a.quick:
        cmd.append("--no-history")
    if a.device == "cpu":
        cmd.append("--no-doctor")
    print("assay_bench: suite %s\nassay_bench: %s" % (suite, " ".join(cmd)), flush=True)
    try:
        rc = subprocess.call(cmd, env=child_env(a.python_path))
    except OSError as e:
        print("assay_bench: cannot start %s: %s" % (assay, e), file=sys.stderr)
        return EXIT_NOTHING
    if rc in (130, 143) or rc < 0:
        print("assay_bench: assay was interrupted (exit %d)" % rc, file=sys.stderr)
        return EXIT_FAIL
    if rc == 2:
        print("assay_bench: nothing could run here (assay exited 2)", file=sys.stderr)
        return EXIT_NOTHING
    if rc == 3:
        print("assay_bench: assay refused the suite %s (exit 3; its message is above)" % suite, file=sys.stderr)
        return EXIT_USAGE
    new = sorted(set(glob.glob(os.path.join(results_dir, "*.json"))) - before, key=os.path.getmtime)
    if not new:
        print("assay_bench: assay exited %d and wrote no results file in %s" % (rc, results_dir), file=sys.stderr)
        return EXIT_FAIL if rc != 0 else EXIT_NOTHING
    try:
        with open(new[-1]) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("assay_bench: cannot read %s: %s" % (new[-1], e), file=sys.stderr)
        return EXIT_FAIL
    code = evaluate(doc, subject, a.baseline, a.require_faster)
    print("results: %s" % new[-1])
    if code == EXIT_OK and rc != 0:  # assay saw a failure the document does not show
        print("assay_bench: assay exited %d" % rc, file=sys.stderr)
        return EXIT_FAIL
    return code
