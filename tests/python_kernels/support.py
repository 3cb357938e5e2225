"""Shared by the tests of tests/python_kernels/: cases for the torch adapter written like assay
writes them (raw little-endian files, the output poisoned with 0xFF), the fp64 reference, and
the adapter run as assay runs it or in-process. Exits 77 (ctest: skipped) without torch."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ADAPTERS = os.path.join(ROOT, "adapters")
ADAPTER = os.path.join(ADAPTERS, "torch_adapter.py")
SKIP = 77

try:
    import torch
    import numpy  # noqa: F401
except Exception as e:  # pragma: no cover
    print("SKIP: torch (with numpy) is not importable by %s: %s" % (sys.executable, e))
    sys.exit(SKIP)

DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}
# the tolerances of suites/*.toml's checks, roughly; fp64 reference
TOL = {"f32": (1e-4, 1e-4), "f16": (2e-3, 1e-2), "bf16": (8e-3, 2e-2)}
FAST = {
    "mode": "cold",
    "warmup": {"calls": 1, "min_s": 0.0},
    "budget": {"min_samples": 3, "max_samples": 8, "min_time_s": 0.0, "target_rel_ci": 0.5, "timeout_s": 0.5},
}


def shapes(workload, p):
    """([(name, shape)], (output name, shape))."""
    if workload == "gemm":
        return [("A", [p["m"], p["k"]]), ("B", [p["k"], p["n"]])], ("C", [p["m"], p["n"]])
    if workload == "mlp":
        b, h = p["batch"], p["hidden"]
        return [("X", [b, h]), ("W1", [h, 4 * h]), ("b1", [4 * h]), ("W2", [4 * h, h]), ("b2", [h])], ("Y", [b, h])
    if workload == "attention":
        sh = [p["b"], p["h"], p["s"], p["d"]]
        return [("Q", sh), ("K", sh), ("V", sh)], ("O", sh)
    raise ValueError(workload)


def tensor_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def read_tensor(path, dtype, shape):
    import numpy as np

    raw = open(path, "rb").read()
    if dtype == "bf16":
        a = np.frombuffer(raw, dtype="<i2").copy()
        return torch.from_numpy(a).view(torch.bfloat16).reshape(shape)
    a = np.frombuffer(raw, dtype={"f32": "<f4", "f16": "<f2"}[dtype]).copy()
    return torch.from_numpy(a).reshape(shape)


def reference(workload, p, x):
    """fp64 reference of the workload on the (rounded) inputs."""
    d = {k: v.double() for k, v in x.items()}
    if workload == "gemm":
        return d["A"] @ d["B"]
    if workload == "mlp":
        g = torch.nn.functional.gelu(d["X"] @ d["W1"] + d["b1"])
        return g @ d["W2"] + d["b2"]
    q, k, v = d["Q"], d["K"], d["V"]
    S = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if p.get("causal"):
        s = q.shape[-2]
        S = S.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(S, -1) @ v


class Case:
    """A case in folder `tmp`: inputs from `seed`, and "fresh_inputs" from seed + 1 when
    `fresh`; `case` is the JSON object, ref/fresh_ref the fp64 references."""

    def __init__(self, tmp, variant, workload="attention", dtype="f32", params=None, purpose="measure",
                 seed=1, fresh=False, tag="c"):
        params = dict(params or {"b": 1, "h": 2, "s": 33, "d": 16, "causal": 1})
        self.workload, self.dtype, self.params = workload, dtype, params
        folder = os.path.join(tmp, tag)
        os.makedirs(folder, exist_ok=True)
        ins, (oname, oshape) = shapes(workload, params)
        self.out_spec = {"name": oname, "path": os.path.join(folder, oname + ".bin"), "dtype": dtype, "shape": oshape}
        with open(self.out_spec["path"], "wb") as f:
            f.write(b"\xff" * (torch.Size(oshape).numel() * torch.tensor([], dtype=DTYPES[dtype]).element_size()))
        self.inputs, self.x = self._write(folder, ins, seed, "")
        self.case = {
            "protocol": "assay.adapter/1", "backend": variant, "variant": variant, "workload": workload,
            "params": params, "dtype": dtype, "purpose": purpose, "seed": seed, "device": "cpu",
            "precision": {"tf32": False, "reduced_precision_reduction": False, "fast_accum": False},
            "inputs": self.inputs, "output": self.out_spec,
        }
        self.case.update(FAST)
        self.ref = reference(workload, params, self.x)
        self.fresh_ref = None
        if fresh:
            specs, fx = self._write(folder, ins, seed + 1000, "fresh-")
            self.case["fresh_inputs"] = specs
            self.fresh_ref = reference(workload, params, fx)

    def _write(self, folder, ins, seed, prefix):
        g = torch.Generator().manual_seed(seed)
        specs, x = [], {}
        for name, shape in ins:
            scale = 1.0
            if name in ("W1", "W2"):
                scale = shape[0] ** -0.5
            t = ((torch.rand(shape, generator=g, dtype=torch.float64) * 2 - 1) * scale).to(DTYPES[self.dtype])
            path = os.path.join(folder, prefix + name + ".bin")
            with open(path, "wb") as f:
                f.write(tensor_bytes(t))
            specs.append({"name": name, "path": path, "dtype": self.dtype, "shape": shape})
            x[name] = t
        return specs, x

    def output(self):
        s = self.out_spec
        return read_tensor(s["path"], s["dtype"], s["shape"])

    def mismatch(self, ref=None):
        """None when the output file passes |out - ref| <= atol + rtol |ref|; else a one-line
        description of the first failing element (NaN fails)."""
        ref = self.ref if ref is None else ref
        out = self.output().double()
        atol, rtol = TOL[self.dtype]
        ok = (out - ref).abs() <= atol + rtol * ref.abs()
        bad = ~ok
        n = int(bad.sum())
        if not n:
            return None
        idx = [int(i) for i in bad.nonzero()[0]]
        return "fails=%d/%d, first at %s: %r vs %r" % (n, ref.numel(), idx, float(out[tuple(idx)]), float(ref[tuple(idx)]))


def adapter_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([HERE] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def run_subprocess(case):
    """The adapter as assay runs it: the case on stdin, exactly one JSON object on stdout, exit 0."""
    p = subprocess.run([sys.executable, ADAPTER], input=json.dumps(case), capture_output=True, text=True,
                       env=adapter_env(), timeout=120)
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    if p.returncode != 0 or len(lines) != 1:
        raise AssertionError("adapter exited %d with stdout %r; stderr tail: %s" % (p.returncode, p.stdout[-500:], p.stderr[-1500:]))
    return json.loads(lines[0])


_adapter_module = None


def run_in_process(case):
    """torch_adapter.run(case) in this process, the planted modules imported afresh (as in a
    new adapter process); the reply as JSON would carry it."""
    global _adapter_module
    if _adapter_module is None:
        sys.path.insert(0, ADAPTERS)
        if HERE not in sys.path:
            sys.path.insert(1, HERE)
        import torch_adapter

        _adapter_module = torch_adapter
    for name in ("planted_kernels", "broken_module"):
        sys.modules.pop(name, None)
    import assay_adapter as aa

    import contextlib
    import io

    err = io.StringIO()  # the adapter's tracebacks (stderr, kept by assay): shown with -v only
    try:
        with contextlib.redirect_stderr(err):
            reply = _adapter_module.run(case)
    except aa.Unavailable as e:
        reply = aa.unavailable_reply(str(e))
    except Exception as e:
        reply = aa.error_reply(aa.error_message(e))
    if "-v" in sys.argv and err.getvalue():
        sys.stderr.write(err.getvalue())
    return json.loads(json.dumps(reply))


def find_assay(argv):
    """The assay binary: argv[1], $ASSAY_BIN, or build/current/bin/assay; None when absent."""
    for c in ([argv[1]] if len(argv) > 1 else []) + [os.environ.get("ASSAY_BIN", ""),
                                                      os.path.join(ROOT, "build", "current", "bin", "assay")]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def assay_env():
    """The environment for `assay run`: this Python's folder first on PATH (assay starts
    `python3 adapters/torch_adapter.py`; the python3 running the tests is the one with torch),
    the adapters of this tree."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env["ASSAY_ADAPTERS_DIR"] = ADAPTERS
    return env


def verdict(failures):
    """The exit code of a test script: 0, or 1 after printing what failed."""
    if failures:
        print("FAILED: " + "; ".join(failures))
        return 1
    return 0
