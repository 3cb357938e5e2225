"""Statistics of timing samples, ported operation for operation from assay's C++ so that the
stopping rule decides the same on the same samples (tests/stopping_rule checks it):
percentiles (src/stats/summary.cpp), the order-statistics CI of the median and its ranks
(summary.cpp), the batch-medians CI (src/stats/serial_correlation.cpp) with Student's t
(src/stats/distributions.cpp), and the running CI the stopping rule reads after every sample
(stats::RunningMedianCi).

Floating-point expressions keep the C++ order of operations and sums run left to right in
plain loops (Python 3.12's sum() of floats is compensated, std::accumulate is not). The one
known source of last-bit differences is math.lgamma (CPython's own, not the C library's),
used by the binomial and Student t terms; its error is far below the 1e-12 slack of the rank
rule and the 1e-14 tolerance of the t quantile's bisection.
"""
import bisect
import functools
import math

_INF = math.inf

# serial_correlation.hpp
MEDIAN_BATCHES = 10
MIN_BATCH_SIZE = 5
MIN_BATCH_SAMPLES = MEDIAN_BATCHES * MIN_BATCH_SIZE  # 50: fewer give no batches


# ---------------------------------------------------------------------------------------------
# percentiles

def _percentile_of(n, q, at):
    """The type-7 percentile q of n sorted values, the k-th (0-based) read through at(k)."""
    h = float(n - 1) * q / 100.0
    lo = int(math.floor(h))
    if lo + 1 >= n:
        return at(n - 1)
    frac = h - float(lo)
    below = at(lo)
    return below + frac * (at(lo + 1) - below)


def percentile_sorted(s, q):
    """numpy's default (linear, R type 7): h = (n - 1) q / 100,
    s[floor(h)] + frac(h) (s[floor(h) + 1] - s[floor(h)]). `s` ascending, non-empty."""
    if not s:
        raise ValueError("percentile of no samples")
    if not (0.0 <= q <= 100.0):
        raise ValueError("percentile: q must lie in [0, 100]")
    return _percentile_of(len(s), q, s.__getitem__)


def summary_ms(samples):
    s = sorted(samples)
    return {
        "mean": sum(s) / len(s),
        "p50": percentile_sorted(s, 50),
        "p95": percentile_sorted(s, 95),
        "min": s[0],
        "max": s[-1],
    }


# ---------------------------------------------------------------------------------------------
# the order-statistics CI of the median (summary.cpp)

def _stirlerr(x):
    """ln(x!) - [(x + 1/2) ln x - x + ln(sqrt(2 pi))]: lgamma for x <= 15, else the series."""
    if x <= 15.0:
        return math.lgamma(x + 1.0) - (x + 0.5) * math.log(x) + x - 0.5 * math.log(2.0 * math.pi)
    s0, s1, s2, s3, s4 = 1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188
    x2 = x * x
    return (s0 - (s1 - (s2 - (s3 - s4 / x2) / x2) / x2) / x2) / x


def _central_binomial_pmf_even(m):
    """C(2m, m) / 4^m."""
    if m == 0:
        return 1.0
    md = float(m)
    return math.exp(_stirlerr(2.0 * md) - 2.0 * _stirlerr(md)) / math.sqrt(math.pi * md)


def _central_binomial_pmf(n):
    """P(B = floor(n/2)) for B ~ Binomial(n, 1/2)."""
    m = n // 2
    if n % 2 == 0:
        return _central_binomial_pmf_even(m)
    return _central_binomial_pmf_even(m) * float(n) / (2.0 * float(m + 1))


@functools.lru_cache(maxsize=None)
def median_ci_lower_rank(n, confidence=0.95):
    """Lower rank j (1-based) of the symmetric median CI [X_(j), X_(n+1-j)]: the largest j in
    [1, n/2] with P(j <= B <= n - j) >= confidence, B ~ Binomial(n, 1/2), summed from the
    centre outwards with a relative slack of 1e-12; 0 when no j reaches it (n < 6 at 95%)."""
    if n < 2:
        return 0
    nd = float(n)
    target = confidence * (1.0 - 1e-12)
    j = n // 2
    pmf = _central_binomial_pmf(n)  # P(B = j)
    mass = pmf if n % 2 == 0 else 2.0 * pmf  # P(j <= B <= n - j)
    while mass < target:
        if j == 1:
            return 0
        pmf *= float(j) / (nd - float(j) + 1.0)  # P(B = j - 1)
        j -= 1
        mass += 2.0 * pmf
    return j


def median_ci_ranks(n, confidence=0.95):
    """1-based ranks (j, n+1-j) of the distribution-free CI of the median
    (median_ci_lower_rank); None when even (1, n) falls short."""
    j = median_ci_lower_rank(n, confidence)
    return None if j == 0 else (j, n + 1 - j)


def _check_confidence(confidence):
    if not (0.0 < confidence < 1.0):
        raise ValueError("median CI: confidence must lie in (0, 1)")


def _median_ci_of(n, confidence, at):
    """((lo, hi), reached_confidence): [X_(j), X_(n+1-j)], or (min, max) and False."""
    j = median_ci_lower_rank(n, confidence)
    if j == 0:
        return (at(0), at(n - 1)), False
    return (at(j - 1), at(n - j)), True


def median_ci_sorted(s, confidence=0.95):
    """stats::median_ci_sorted: ((lo, hi), reached_confidence) of ascending samples."""
    if not s:
        raise ValueError("median CI of an empty sample")
    _check_confidence(confidence)
    return _median_ci_of(len(s), confidence, s.__getitem__)


def _relative(half, median):
    """half / |median|; 0 for a zero half-width whatever the median; inf for a zero median."""
    if half == 0.0:
        return 0.0
    if median == 0.0:
        return _INF
    return half / abs(median)


def _relative_halfwidth(ci, median):
    (lo, hi), reached = ci
    if not reached:
        return _INF
    return _relative((hi - lo) / 2.0, median)


def _union_with_batch(ci, median, batch_half):
    """The CI of record: the rank CI widened to median -/+ the batch half-width where wider."""
    if batch_half is None:
        return ci
    (lo, hi), reached = ci
    return (min(lo, median - batch_half), max(hi, median + batch_half)), reached


# ---------------------------------------------------------------------------------------------
# Student's t (distributions.cpp)

def _beta_continued_fraction(a, b, x):
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < tiny:
        d = tiny
    d = 1.0 / d
    h = d
    for m in range(1, 10001):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < tiny:
            d = tiny
        c = 1.0 + aa / c
        if abs(c) < tiny:
            c = tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def _regularized_incomplete_beta(a, b, x):
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_continued_fraction(a, b, x) / a
    return 1.0 - front * _beta_continued_fraction(b, a, 1.0 - x) / b


def student_t_two_sided_p(t, df):
    """P(|T| >= |t|) for T ~ Student's t with df > 0 degrees of freedom."""
    if not (df > 0.0):
        raise ValueError("student_t_two_sided_p: df must be > 0")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return _regularized_incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


@functools.lru_cache(maxsize=None)
def student_t_two_sided_quantile(confidence, df):
    """The t > 0 with P(|T| <= t) = confidence, by bisection as assay's C++ finds it."""
    if not (0.0 < confidence < 1.0):
        raise ValueError("student t quantile: confidence in (0, 1)")
    if not (df > 0.0):
        raise ValueError("student t quantile: df must be > 0")
    tail = 1.0 - confidence
    lo, hi = 0.0, 1.0
    while student_t_two_sided_p(hi, df) > tail:
        hi *= 2.0
    for _ in range(200):
        if not (hi - lo > 1e-14 * hi):
            break
        mid = (lo + hi) / 2.0
        if student_t_two_sided_p(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


# ---------------------------------------------------------------------------------------------
# the batch-medians CI (serial_correlation.cpp): valid when samples come in runs, as on a
# power-capped GPU whose clock persists over many consecutive samples

def batch_medians(in_order):
    """The medians of 10 contiguous batches of floor(n / 10) samples in the order taken, the
    first n mod 10 samples left out; [] when n < 50."""
    n = len(in_order)
    if n < MIN_BATCH_SAMPLES:
        return []
    size = n // MEDIAN_BATCHES
    skip = n - size * MEDIAN_BATCHES
    medians = []
    for b in range(MEDIAN_BATCHES):
        first = skip + b * size
        medians.append(percentile_sorted(sorted(in_order[first:first + size]), 50))
    return medians


def batch_median_ci_halfwidth(in_order, confidence=0.95):
    """t(confidence, 9) * sd(batch medians) / sqrt(10), in the samples' unit; None when n < 50."""
    if not (0.0 < confidence < 1.0):
        raise ValueError("batch median CI: confidence must lie in (0, 1)")
    medians = batch_medians(in_order)
    if not medians:
        return None
    b = float(MEDIAN_BATCHES)
    total = 0.0
    for m in medians:
        total += m
    mean = total / b
    ss = 0.0
    for m in medians:
        ss += (m - mean) * (m - mean)
    sd = math.sqrt(ss / (b - 1.0))
    return student_t_two_sided_quantile(confidence, b - 1.0) * sd / math.sqrt(b)


# ---------------------------------------------------------------------------------------------
# the running CI of the stopping rule (stats::RunningMedianCi)

class RunningMedianCi:
    """Samples kept sorted (insertion after equal values, like the C++ tree's (value, arrival)
    keys) and in order. rel_halfwidth() is the relative half-width of the union of the rank CI
    and the batch-medians interval; the batch part is refreshed only when read and the count
    has grown by 1/64 since its last refresh, exactly as in C++, so the value read depends on
    when it was read before."""

    def __init__(self):
        self._sorted = []
        self._in_order = []
        self._batch_cached = None
        self._batch_cached_n = 0
        self._batch_cached_confidence = 0.0

    def add(self, x):
        x = float(x)
        if not math.isfinite(x):
            raise ValueError("sample is NaN or infinite")
        bisect.insort_right(self._sorted, x)
        self._in_order.append(x)

    def size(self):
        return len(self._in_order)

    __len__ = size

    @property
    def sorted(self):
        return self._sorted

    def median(self):
        if not self._in_order:
            raise ValueError("median of no samples")
        return _percentile_of(len(self._sorted), 50, self._sorted.__getitem__)

    def _rank_ci(self, confidence):
        return _median_ci_of(len(self._sorted), confidence, self._sorted.__getitem__)

    def rank_rel_halfwidth(self, confidence=0.95):
        """The rank part alone, exact for the current samples; inf when n < 6."""
        _check_confidence(confidence)
        if not self._in_order:
            return _INF
        return _relative_halfwidth(self._rank_ci(confidence), self.median())

    def batch_rel_halfwidth(self, confidence=0.95):
        """The batch part alone, exact for the current samples; None when n < 50."""
        half = batch_median_ci_halfwidth(self._in_order, confidence)
        if half is None:
            return None
        return _relative(half, self.median())

    def rel_halfwidth(self, confidence=0.95):
        """Relative half-width of the union CI, the batch part as of its last refresh; inf when
        n < 6."""
        _check_confidence(confidence)
        if not self._in_order:
            return _INF
        n = len(self._in_order)
        if confidence != self._batch_cached_confidence or n >= self._batch_cached_n + self._batch_cached_n // 64 + 1:
            self._batch_cached = batch_median_ci_halfwidth(self._in_order, confidence)
            self._batch_cached_n = n
            self._batch_cached_confidence = confidence
        m = self.median()
        return _relative_halfwidth(_union_with_batch(self._rank_ci(confidence), m, self._batch_cached), m)
