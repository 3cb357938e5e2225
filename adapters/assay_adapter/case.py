"""The case's tensors and workload: input and output files, dtypes, FLOPs, stack versions."""
import os

from .errors import Unavailable

# bytes per element of the dtypes assay writes
DTYPE_BYTES = {"f32": 4, "f16": 2, "bf16": 2}

INPUT_NAMES = {"gemm": ["A", "B"], "mlp": ["X", "W1", "b1", "W2", "b2"], "attention": ["Q", "K", "V"],
               "block": ["X", "ln1_w", "ln1_b", "Wq", "Wk", "Wv", "Wo", "ln2_w", "ln2_b", "W1", "b1", "W2", "b2"]}


def input_spec(case, name):
    for t in case["inputs"]:
        if t.get("name") == name:
            return t
    raise ValueError("the case has no input named %r (has %s)" % (name, [t.get("name") for t in case["inputs"]]))


def numel(shape):
    n = 1
    for x in shape:
        n *= int(x)
    return n


def check_dtype(case):
    if case["dtype"] not in DTYPE_BYTES:
        raise Unavailable("dtype %s is not supported by this adapter" % case["dtype"])


def read_numpy(spec):
    """A numpy array of the raw file: float32 / float16, or uint16 bits for bf16."""
    import numpy as np

    dt = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}[spec["dtype"]]
    shape = [int(x) for x in spec["shape"]]
    expected = numel(shape) * DTYPE_BYTES[spec["dtype"]]
    size = os.path.getsize(spec["path"])
    if size != expected:
        raise ValueError("input %s holds %d bytes, expected %d (%s %s)" % (spec["name"], size, expected, spec["dtype"], shape))
    a = np.fromfile(spec["path"], dtype=np.dtype(dt).newbyteorder("<"), count=numel(shape))
    return a.astype(a.dtype.newbyteorder("="), copy=False).reshape(shape)


def write_bytes(case, data):
    """Writes the output file; `data` must be exactly the expected size."""
    spec = case["output"]
    expected = numel(spec["shape"]) * DTYPE_BYTES[spec["dtype"]]
    if len(data) != expected:
        raise ValueError("output holds %d bytes, expected %d (%s %s)" % (len(data), expected, spec["dtype"], spec["shape"]))
    with open(spec["path"], "wb") as f:
        f.write(data)


def workload_flops(case):
    p = case["params"]
    w = case["workload"]
    try:
        if w == "gemm":
            return 2.0 * p["m"] * p["n"] * p["k"]
        if w == "mlp":
            return 16.0 * p["batch"] * p["hidden"] ** 2
        if w == "attention":
            f = 4.0 * p["b"] * p["h"] * p["s"] ** 2 * p["d"]
            return f / 2 if int(p.get("causal", 0)) else f
        if w == "block":
            rows, h = p["batch"] * p["seq"], p["hidden"]
            att = 4.0 * p["batch"] * p["seq"] ** 2 * h
            return 24.0 * rows * h * h + (att / 2 if int(p.get("causal", 0)) else att)
    except KeyError:
        return None
    return None


def package_versions(names):
    """Installed versions by distribution name, without importing the packages."""
    out = {}
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover
        return out
    for n in names:
        try:
            out[n] = metadata.version(n)
        except Exception:
            out[n] = "absent"
    return out


def fresh_input_specs(case):
    """The case's "fresh_inputs" (purpose "measure" only): other values of the same input
    tensors, in the form of "inputs", for the untimed call after the timed loop whose output is
    the one written (so that a callable that caches its result between calls is caught by the
    recheck against the fresh inputs' oracle). [] when absent, empty or purpose is "check".
    Each must name an input of the case and have its dtype and shape; ValueError otherwise."""
    fresh = case.get("fresh_inputs")
    if not fresh or case.get("purpose", "measure") != "measure":
        return []
    if not isinstance(fresh, list):
        raise ValueError("field 'fresh_inputs' must be a list of tensor files like 'inputs'")
    seen = set()
    for spec in fresh:
        if not isinstance(spec, dict) or not {"name", "path", "dtype", "shape"} <= set(spec):
            raise ValueError("each of 'fresh_inputs' needs name, path, dtype and shape: %r" % (spec,))
        orig = input_spec(case, spec["name"])
        if spec["dtype"] != orig["dtype"] or [int(x) for x in spec["shape"]] != [int(x) for x in orig["shape"]]:
            raise ValueError("fresh input %s is %s %s, the input is %s %s" % (
                spec["name"], spec["dtype"], list(spec["shape"]), orig["dtype"], list(orig["shape"])))
        if spec["name"] in seen:
            raise ValueError("fresh input %s is given twice" % spec["name"])
        seen.add(spec["name"])
    return fresh
