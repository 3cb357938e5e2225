"""assay's stopping rule and measuring loop in Python, for adapters that time their own calls.

The rule is measure::StoppingRule (src/measure/criterion.{hpp,cpp}) over
stats::RunningMedianCi (stats.py here), held to it by
tests/stopping_rule/test_stopping_rule_parity.py: the same samples and clock readings give the
same decision at every step and the same relative CI half-width.
Why a copy and not a C++ loop driving the adapter sample by sample: an adapter is a separate
process whose stack has its own start-up, and a pipe round trip per batch would put host
latency between samples, which on a power-capped GPU changes the operating point (the sample
gap effect, docs/suite-format.md "Sample gap"); it would also break the one-request/one-reply
protocol that third-party commands such as TVM_BENCH_CMD already speak.
"""
import math
import time

from .stats import RunningMedianCi


class StoppingRule:
    """Sampling goes on until: max_samples; or min_samples, min_time_s and the median's 95% CI
    relative half-width <= target_rel_ci; or timeout_s. `budget` is the case's "budget" object
    (suite::MeasureConfig's fields, the same defaults)."""

    def __init__(self, budget):
        self.min_samples = int(budget.get("min_samples", 20))
        self.max_samples = int(budget.get("max_samples", 5000))
        self.min_time_s = float(budget.get("min_time_s", 0.3))
        self.target = float(budget.get("target_rel_ci", 0.01))
        self.timeout_s = float(budget.get("timeout_s", 15.0))
        self._ci = RunningMedianCi()

    def add(self, x):
        """Raises ValueError on a NaN or infinite sample."""
        self._ci.add(x)

    def samples(self):
        return self._ci.size()

    @property
    def sorted(self):
        """The samples so far, ascending."""
        return self._ci.sorted

    def rel_halfwidth(self):
        return self._ci.rel_halfwidth()

    def stop_reason(self, elapsed_s):
        """"converged", "max-samples" or "timeout" when sampling should stop; None to go on.
        The CI is read only when the count and the clock allow convergence (the C++ && chain):
        reading it refreshes its batch part, so the order of the tests is part of the rule."""
        n = self._ci.size()
        if n >= self.max_samples:
            return "max-samples"
        if n >= self.min_samples and elapsed_s >= self.min_time_s and self._ci.rel_halfwidth() <= self.target:
            return "converged"
        if elapsed_s >= self.timeout_s:
            return "timeout"
        return None


def measure_loop(warmup_call, sample, case):
    """assay's measuring loop (src/measure/measure_loop.cpp): warm-up of warmup.calls calls and
    at least warmup.min_s seconds (cut at timeout_s/2), then samples until the stopping rule
    says stop. `sample()` returns one time in ms. Returns (samples_ms, stop_reason).

    What the C++ loop has and this one has not: the cool-down before the warm-up (cooldown_s is
    not part of the case: assay idles, if at all, before it starts the adapter) and the drop of
    throttled samples with its back-off (it needs the SM clock of each sample, which only
    assay's own GPU samplers read). What this one adds: a sample of exactly 0 (a coarse timer)
    becomes 1e-6 ms, as the protocol wants positive samples."""
    warm = case.get("warmup", {})
    rule = StoppingRule(case.get("budget", {}))
    calls = int(warm.get("calls", 3))
    min_s = float(warm.get("min_s", 0.05))
    start = time.perf_counter()
    elapsed = lambda: time.perf_counter() - start  # noqa: E731
    n = 0
    while n < calls or elapsed() < min_s:
        warmup_call()
        n += 1
        if elapsed() >= rule.timeout_s / 2:
            break
    samples = []
    while True:
        ms = float(sample())
        if not (ms > 0) or not math.isfinite(ms):
            ms = 1e-6 if ms == 0 else ms  # a 0 from a coarse timer; NaN/inf are errors below
        samples.append(ms)
        rule.add(ms)
        reason = rule.stop_reason(elapsed())
        if reason:
            return samples, reason
