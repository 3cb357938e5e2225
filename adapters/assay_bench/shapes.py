"""The shape sets of `python3 -m assay_bench`: per workload, named matrices of suite axes with
the check shape and tolerances that go with them (suite format: docs/suite-format.md)."""

# workload -> set name -> {"axes": {...}, "check": {...}, "about": str}
SETS = {
    "attention": {
        # the 27-point fuzz matrix of suites/attention-hopper.toml (S x B x H, d = 64, non-causal)
        "fuzz": {
            "axes": {"s": [448, 512, 640], "b": [16, 32, 48], "h": [4, 8, 16], "d": 64, "causal": 0},
            "check": {"shape": {"b": 1, "h": 2}},
            "about": "27 points: s 448/512/640 x b 16/32/48 x h 4/8/16, d 64, non-causal (suites/attention-hopper.toml)",
        },
        # small and ragged (s = 33 is no multiple of a tile), causal and not: CPU and CI
        "small": {
            "axes": {"s": [16, 33, 64], "b": [1, 2], "h": 3, "d": [16, 64], "causal": [0, 1]},
            "check": {},
            "about": "24 points: s 16/33/64 x b 1/2 x d 16/64 x causal 0/1, h 3",
        },
        # one ragged causal point: the tests' end-to-end runs (tests/python_kernels/)
        "tiny": {
            "axes": {"s": 33, "b": 1, "h": 2, "d": 16, "causal": 1},
            "check": {},
            "about": "1 point: b 1, h 2, s 33, d 16, causal",
        },
    },
    "gemm": {
        "fuzz": {
            "axes": {"m": [1000, 2048, 4096], "n": [1024, 3000], "k": [512, 4096]},
            "check": {"shape": {"m": 200, "n": 136, "k": 264}},
            "about": "12 points: m 1000/2048/4096 x n 1024/3000 x k 512/4096",
        },
        "small": {
            "axes": {"m": [16, 33, 64], "n": [16, 48], "k": [16, 40]},
            "check": {},
            "about": "12 points: m 16/33/64 x n 16/48 x k 16/40",
        },
    },
    "mlp": {
        "fuzz": {
            "axes": {"batch": [128, 1000, 4096], "hidden": [1024, 2048]},
            "check": {"shape": {"batch": 40, "hidden": 256}},
            "about": "6 points: batch 128/1000/4096 x hidden 1024/2048",
        },
        "small": {
            "axes": {"batch": [1, 7, 32], "hidden": [16, 48]},
            "check": {},
            "about": "6 points: batch 1/7/32 x hidden 16/48",
        },
    },
}

# check tolerances by dtype (the attention protocol's for 16-bit types; f32 tight)
TOLERANCES = {"f16": (0.004, 0.02), "bf16": (0.004, 0.02), "f32": (0.0005, 0.001)}

MEASURE = {
    "mode": "cold", "min_samples": 20, "max_samples": 2000, "min_time_s": 0.1, "target_rel_ci": 0.02,
    "timeout_s": 5, "adapter_timeout_s": 600,
}
# --quick: a few samples, a wide CI: for CI jobs that check correctness and plumbing
QUICK = {
    "mode": "cold", "warmup_calls": 1, "warmup_min_s": 0.0, "min_samples": 5, "max_samples": 50,
    "min_time_s": 0.0, "target_rel_ci": 0.2, "timeout_s": 1, "adapter_timeout_s": 300,
}


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (k, toml_value(x)) for k, x in v.items()) + " }"
    raise TypeError(type(v))


def suite_toml(name, workload, shape_set, dtype, backends, baseline, python_path, quick):
    """The text of a suite: one bench of `workload` over the set's axes, `backends`, the
    baseline, python_path (absolute folders) in the [suite] table."""
    s = SETS[workload][shape_set]
    atol, rtol = TOLERANCES[dtype]
    lines = [
        "# Written by python3 -m assay_bench (adapters/assay_bench/): %s, %s shapes (%s)." % (workload, shape_set, s["about"]),
        "",
        "[suite]",
        "name = %s" % toml_value(name),
        "python_path = %s" % toml_value(list(python_path)),
        'description = %s' % toml_value("%s of %s against %s" % (workload, backends[-1], baseline)),
        "",
        "[defaults.measure]",
    ]
    for k, v in (QUICK if quick else MEASURE).items():
        lines.append("%s = %s" % (k, toml_value(v)))
    lines += ["", "[defaults.check]", "atol = %s" % toml_value(atol), "rtol = %s" % toml_value(rtol), "recheck = true"]
    if s["check"].get("shape"):
        lines.append("shape = %s" % toml_value(s["check"]["shape"]))
    lines += [
        "",
        "[[bench]]",
        "name = %s" % toml_value(shape_set),
        "workload = %s" % toml_value(workload),
        "backends = %s" % toml_value(list(backends)),
        "baseline = %s" % toml_value(baseline),
        "dtype = %s" % toml_value(dtype),
        "[bench.axes]",
    ]
    for k, v in s["axes"].items():
        lines.append("%s = %s" % (k, toml_value(v)))
    return "\n".join(lines) + "\n"
