#!/usr/bin/env python3
"""The Python stopping rule of the adapters (adapters/assay_adapter/stopping.py) decides as
assay's C++ one (measure::StoppingRule, src/measure/criterion.cpp, over stats::RunningMedianCi).

Generates seeded sample sequences (log-normal, bimodal, ties, drift, steps, runs as under a
power cap, zero-median, short and long) with criteria and clock readings of many kinds, feeds
them all to stopping_rule_probe (the C++ rule) in one call and to the Python rule, and asserts
at every step: the same decision, and the same relative CI half-width (1e-12 relative, or both
infinite) both when read after every sample and when read only where stop_reason reads it.
Also: the rank of the order-statistics CI of the median for every n up to 20,000.

  test_stopping_rule_parity.py PROBE ADAPTERS_DIR [unittest options]
  (or ASSAY_STOPPING_RULE_PROBE and ASSAY_ADAPTERS_DIR in the environment)

Standard library only; no GPU, numpy or torch.
"""
import json
import math
import os
import random
import subprocess
import sys
import unittest

PROBE = os.environ.get("ASSAY_STOPPING_RULE_PROBE", "")
ADAPTERS = os.environ.get("ASSAY_ADAPTERS_DIR", "")
SEED = 24
REL_TOL = 1e-12
RANKS_UP_TO = 20000


# ---------------------------------------------------------------------------------------------
# sequences

def lognormal(r, n):
    mu, sigma = r.uniform(-3, 3), r.choice([0.001, 0.01, 0.05, 0.2, 0.6])
    return [math.exp(r.gauss(mu, sigma)) for _ in range(n)]


def bimodal(r, n):
    a = r.uniform(0.05, 5)
    b = a * r.uniform(1.01, 2.0)
    p = r.uniform(0.05, 0.95)
    s = r.choice([0.0005, 0.005, 0.02])
    return [(a if r.random() < p else b) * (1 + r.gauss(0, s)) for _ in range(n)]


def ties(r, n):
    """A coarse timer: few distinct values, often exactly equal."""
    quantum = r.choice([1.0, 0.5, 0.25, 0.001, 1e-3 * 3])
    centre = r.choice([3, 10, 99, 100, 101, 1000, 4096])
    spread = r.choice([0, 0, 1, 2, 5])
    return [(centre + r.randint(-spread, spread)) * quantum for _ in range(n)]


def all_equal(r, n):
    return [r.choice([1.0, 0.1, 7.25, 1e-6, 123456.789])] * n


def drifting(r, n):
    base, slope, s = r.uniform(0.1, 10), r.uniform(-0.3, 0.6) / max(n, 1), r.choice([0.001, 0.01, 0.05])
    return [base * (1 + slope * i) * (1 + r.gauss(0, s)) for i in range(n)]


def steps(r, n):
    level = r.uniform(0.1, 10)
    out = []
    for _ in range(n):
        if r.random() < r.choice([0.002, 0.01, 0.05]):
            level *= r.uniform(0.8, 1.25)
        out.append(level * (1 + r.gauss(0, 0.003)))
    return out


def power_cap(r, n):
    """Runs of a persisting clock: the level holds for tens to hundreds of samples."""
    base = r.uniform(0.2, 5)
    out, i = [], 0
    while i < n:
        run = r.randint(10, 300)
        clock = r.uniform(0.75, 1.0)
        out.extend(base / clock * (1 + r.gauss(0, 0.002)) for _ in range(min(run, n - i)))
        i += run
    return out


def ar1(r, n):
    phi, base, s = r.choice([0.5, 0.9, 0.99]), r.uniform(0.5, 2), r.choice([0.001, 0.01])
    x, out = 0.0, []
    for _ in range(n):
        x = phi * x + r.gauss(0, s)
        out.append(base * (1 + x))
    return out


def around_zero(r, n):
    """Zero and negative values (the C++ rule accepts every finite sample): zero medians."""
    kind = r.randrange(3)
    if kind == 0:
        return [r.choice([-1.0, 0.0, 1.0]) for _ in range(n)]
    if kind == 1:
        return [0.0] * n
    return [r.gauss(0, 1) for _ in range(n)]


def exact_ratio(r, n):
    """Integers around 100, so that (hi - lo) / 2 / median can equal a target exactly."""
    return [float(r.choice([99, 100, 100, 100, 101])) for _ in range(n)]


GENERATORS = [lognormal, bimodal, ties, all_equal, drifting, steps, power_cap, ar1, around_zero, exact_ratio]


def length(r):
    u = r.random()
    if u < 0.25:
        return r.randint(1, 60)
    if u < 0.75:
        return r.randint(60, 800)
    return r.randint(800, 4000)


def criterion(r, gen):
    c = {
        "min_samples": r.choice([0, 1, 2, 5, 6, 10, 20, 20, 50, 64, 100]),
        "max_samples": r.choice([1, 5, 20, 50, 100, 500, 1000, 5000, 5000, 10 ** 9]),
        "min_time_s": r.choice([0.0, 0.0, 0.01, 0.1, 0.3, 0.3, 1.0]),
        "target_rel_ci": r.choice([0.0, 0.001, 0.005, 0.01, 0.01, 0.02, 0.05, 0.2, 1.0]),
        "timeout_s": r.choice([0.0, 0.05, 0.5, 1.0, 3.0, 15.0, 15.0, 1e9]),
    }
    if gen is exact_ratio:
        c["target_rel_ci"] = r.choice([0.005, 0.01, 0.0])
    return c


def clock(r, samples):
    """Elapsed seconds after each sample, non-decreasing, at varied rates."""
    kind = r.randrange(5)
    out, t = [], r.choice([0.0, 0.05, 0.3])
    rate = r.choice([1e-5, 1e-4, 1e-3, 1e-2])
    for i, x in enumerate(samples):
        if kind == 0:  # the samples' own time plus overhead
            t += abs(x) * 1e-3 * r.uniform(1, 3) + 1e-5
        elif kind == 1:  # steady
            t += rate
        elif kind == 2:  # stalls and jumps
            t += 0.0 if r.random() < 0.5 else r.expovariate(1 / (rate * 2))
        elif kind == 3:  # accelerating
            t += rate * (1 + i / 100)
        else:  # exact steps that hit the thresholds exactly
            t = (i + 1) * 0.01
        out.append(t)
    return out


def make_cases(seed=SEED, count=420):
    r = random.Random(seed)
    cases = []
    for i in range(count):
        gen = GENERATORS[i % len(GENERATORS)]
        n = length(r)
        if i % 41 == 0:
            n = r.randint(1, 8)  # very short
        samples = gen(r, n)
        cases.append({"name": "%d:%s[n=%d]" % (i, gen.__name__, n), "criterion": criterion(r, gen),
                      "samples": samples, "elapsed_s": clock(r, samples)})
    return cases


# ---------------------------------------------------------------------------------------------
# the two rules

def run_probe(cases):
    payload = json.dumps([{k: c[k] for k in ("criterion", "samples", "elapsed_s")} if "samples" in c else c
                          for c in cases])
    proc = subprocess.run([PROBE], input=payload, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError("stopping_rule_probe failed (%d): %s" % (proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout)


def python_rule(case):
    from assay_adapter.stopping import StoppingRule

    k = case["criterion"]
    rule, eager = StoppingRule(k), StoppingRule(k)
    decisions, rel, lazy = [], [], []
    for x, t in zip(case["samples"], case["elapsed_s"]):
        rule.add(x)
        eager.add(x)
        decisions.append(rule.stop_reason(t))
        n = rule.samples()
        read = n < rule.max_samples and n >= rule.min_samples and t >= rule.min_time_s
        lazy.append(rule.rel_halfwidth() if read else None)
        rel.append(eager.rel_halfwidth())
    return {"decisions": decisions, "rel_halfwidth": rel, "rel_halfwidth_lazy": lazy}


def from_probe(v):
    if isinstance(v, str):
        return {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}[v]
    return v


def same_value(a, b):
    if a is None or b is None:
        return a is None and b is None
    if math.isinf(a) or math.isinf(b):
        return a == b
    return a == b or abs(a - b) <= REL_TOL * max(abs(a), abs(b))


class StoppingRuleParity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not PROBE:
            raise unittest.SkipTest("no stopping_rule_probe (give its path as the first argument)")
        if not os.access(PROBE, os.X_OK):
            raise RuntimeError("stopping_rule_probe %r is not an executable file" % PROBE)
        if not os.path.isfile(os.path.join(ADAPTERS, "assay_adapter", "stopping.py")):
            raise RuntimeError("%r holds no assay_adapter package" % ADAPTERS)
        sys.path.insert(0, ADAPTERS)

    def test_same_decisions_and_halfwidths(self):
        cases = make_cases()
        self.assertGreaterEqual(len(cases), 400)
        results = run_probe(cases)
        self.assertEqual(len(results), len(cases))
        problems, steps, exact, stops = [], 0, 0, {}
        for case, want in zip(cases, results):
            got = python_rule(case)
            first = next((d for d in want["decisions"] if d), None)
            stops[first] = stops.get(first, 0) + 1
            for i, (wd, gd) in enumerate(zip(want["decisions"], got["decisions"])):
                steps += 1
                if wd != gd:
                    problems.append("%s step %d: decision C++ %r, Python %r" % (case["name"], i, wd, gd))
                for key in ("rel_halfwidth", "rel_halfwidth_lazy"):
                    w, g = from_probe(want[key][i]), got[key][i]
                    if not same_value(w, g):
                        problems.append("%s step %d: %s C++ %r, Python %r" % (case["name"], i, key, w, g))
                    elif w == g:
                        exact += 1
            if len(want["decisions"]) != len(got["decisions"]):
                problems.append("%s: %d decisions from C++, %d from Python" % (
                    case["name"], len(want["decisions"]), len(got["decisions"])))
        sys.stderr.write("%d sequences, %d steps; first stops %s; half-widths bit-identical: %d of %d\n" % (
            len(cases), steps, dict(sorted(stops.items(), key=str)), exact, 2 * steps))
        if problems:
            decided = sum(1 for p in problems if ": decision " in p)
            self.fail("%d differences (%d in decisions), the first:\n  %s" % (
                len(problems), decided, "\n  ".join(problems[:15])))

    def test_median_ci_ranks(self):
        from assay_adapter.stats import median_ci_lower_rank

        want = run_probe([{"median_ci_ranks_up_to": RANKS_UP_TO}])[0]["lower_ranks"]
        got = [median_ci_lower_rank(n, 0.95) for n in range(1, RANKS_UP_TO + 1)]
        bad = [(n, w, g) for n, (w, g) in enumerate(zip(want, got), start=1) if w != g]
        if bad:
            self.fail("%d lower ranks differ, the first (n, C++, Python): %s" % (len(bad), bad[:10]))
        self.assertEqual(got[:10], [0, 0, 0, 0, 0, 1, 1, 1, 2, 2])


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) >= 2 and not args[0].startswith("-"):
        PROBE, ADAPTERS, args = args[0], args[1], args[2:]
    if not ADAPTERS:
        ADAPTERS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters")
    unittest.main(argv=[sys.argv[0]] + args)
