#include "stats/sample_comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "stats/bootstrap.hpp"
#include "stats/distributions.hpp"
#include "stats/rank_tests.hpp"
#include "stats/serial_correlation.hpp"

namespace assay::stats {
namespace {

void check_side(const Sessions& side) {
  if (side.empty()) throw std::invalid_argument("compare: a side has no sessions");
  for (const auto& s : side) {
    if (s.empty()) throw std::invalid_argument("compare: a session has no samples");
    for (double x : s)
      if (!(x > 0.0) || !std::isfinite(x))
        throw std::invalid_argument("compare: a sample is zero, negative or not finite");
  }
}

std::vector<double> pooled(const Sessions& side) {
  std::vector<double> out;
  for (const auto& s : side) out.insert(out.end(), s.begin(), s.end());
  return out;
}

std::vector<double> logs_of(std::vector<double> v) {
  for (double& x : v) x = std::log(x);
  return v;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// The samples are the replicates: ratio of medians, seeded bootstrap CI, Mann-Whitney p.
void by_samples(const std::vector<double>& base, const std::vector<double>& cand, const Thresholds& t,
                SampleComparison& c) {
  c.method = Method::samples;
  c.base_median = median_of(base);
  c.cand_median = median_of(cand);
  c.ratio = c.cand_median / c.base_median;
  c.ratio_ci = bootstrap_ratio_of_medians_ci(base, cand, {t.resamples, t.confidence, t.seed});
  c.too_few = base.size() < kMinSamplesForInterval || cand.size() < kMinSamplesForInterval;
  c.p_value = c.mann_whitney_p;
  c.test = c.mann_whitney_exact ? "Mann-Whitney exact" : "Mann-Whitney normal";
}

// Replicates on each side (session or batch medians): Student's t on their logs (pooled
// variance, which also serves a side of one session), ratio of geometric means, t interval. The
// variance of one replicate is at least step^2 / 12, a uniform rounding error of `step` (the
// relative timer step): replicates on the timer's grid that agree exactly are not noise-free.
void by_replicates(const std::vector<double>& base, const std::vector<double>& cand, const char* what, double step,
                   const Thresholds& t, SampleComparison& c) {
  std::vector<double> lb, lc;
  for (double x : base) lb.push_back(std::log(x));
  for (double x : cand) lc.push_back(std::log(x));
  const double mb = mean_of(lb), mc = mean_of(lc), d = mc - mb;
  double ss = 0;
  for (double x : lb) ss += (x - mb) * (x - mb);
  for (double x : lc) ss += (x - mc) * (x - mc);
  const double nb = static_cast<double>(lb.size()), nc = static_cast<double>(lc.size());
  const double df = nb + nc - 2.0;
  const double floor_var = step * step / 12.0;
  const bool floored = ss / df < floor_var;
  const double se = std::sqrt(std::max(ss / df, floor_var) * (1.0 / nb + 1.0 / nc));
  c.base_median = std::exp(mb);
  c.cand_median = std::exp(mc);
  c.ratio = std::exp(d);
  c.test = fmt::format("t-test of {}+{} {} medians", lb.size(), lc.size(), what);
  if (floored && step > 0) c.test += fmt::format(" (spread floored at a timer step of {:.2f}%)", 100.0 * step);
  if (se == 0) {  // every sample of both sides has one value
    c.p_value = d == 0 ? 1.0 : 0.0;
    c.ratio_ci = {c.ratio, c.ratio};
    return;
  }
  c.p_value = student_t_two_sided_p(d / se, df);
  const double half = student_t_two_sided_quantile(t.confidence, df) * se;
  c.ratio_ci = {std::exp(d - half), std::exp(d + half)};
}

void by_sessions(const Sessions& base, const Sessions& cand, double step, const Thresholds& t, SampleComparison& c) {
  c.method = Method::sessions;
  std::vector<double> mb, mc;
  for (const auto& s : base) mb.push_back(median_of(s));
  for (const auto& s : cand) mc.push_back(median_of(s));
  by_replicates(mb, mc, "session", step, t, c);
}

// Whether one session's samples come in runs: a lag-1 autocorrelation, or a spread of batch means,
// beyond what independent samples give but one time in a thousand.
bool serially_correlated(const std::vector<double>& in_order) {
  const auto r1 = lag1_autocorrelation(in_order);
  return (r1 && *r1 > kSerialCorrelationZ / std::sqrt(static_cast<double>(in_order.size()))) ||
         batch_means_vary_too_much(in_order);
}

void by_batches(const std::vector<double>& base, const std::vector<double>& cand, double step, const Thresholds& t,
                SampleComparison& c) {
  c.method = Method::batches;
  by_replicates(batch_medians(base), batch_medians(cand), "batch", step, t, c);
}

// "5.0% slower" / "3.1% faster" for a slowdown factor s.
std::string change_words(double s) {
  if (s >= 1.0) return fmt::format("{:.1f}% slower", 100.0 * (s - 1.0));
  return fmt::format("{:.1f}% faster", 100.0 * (1.0 / s - 1.0));
}

}  // namespace

double relative_timer_step(const std::vector<double>& base, const std::vector<double>& cand) {
  if (base.empty() || cand.empty()) return 0.0;
  std::vector<double> all = base;
  all.insert(all.end(), cand.begin(), cand.end());
  std::sort(all.begin(), all.end());
  double step = 0.0;
  for (std::size_t i = 1; i < all.size(); ++i) {
    const double gap = all[i] - all[i - 1];
    // Gaps below a millionth of the value are one tick converted twice (float ms to double ns), not a tick.
    if (gap > 1e-6 * all[i] && (step == 0.0 || gap < step)) step = gap;
  }
  if (step == 0.0) return 0.0;
  // On a grid: every value a whole number of steps from the smallest (to a twentieth of a step).
  for (const double x : all) {
    const double k = std::round((x - all.front()) / step);
    if (std::fabs(x - all.front() - k * step) > 0.05 * step + 1e-6 * x) return 0.0;
  }
  return step / std::min(median_of(base), median_of(cand));
}

std::string method_name(Method m) {
  switch (m) {
    case Method::samples: return "samples";
    case Method::batches: return "batches";
    case Method::sessions: return "sessions";
    case Method::history: return "history";
    case Method::paired: return "paired";
  }
  return "samples";
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::faster: return "FASTER";
    case Verdict::slower: return "SLOWER";
    case Verdict::same: return "SAME";
    case Verdict::ambiguous: return "AMBIGUOUS";
    case Verdict::new_case: return "NEW";
    case Verdict::gone: return "GONE";
    case Verdict::failed: return "FAILED";
  }
  return "AMBIGUOUS";
}

std::string p_value_text(double p) {
  if (p < 1e-16) return "< 1e-16";
  return p < 1e-3 ? fmt::format("{:.1e}", p) : fmt::format("{:.3f}", p);
}

void decide_verdict(SampleComparison& c, Better better, const Thresholds& t) {
  // Medians (or means of medians) on a timer's grid are each off by up to half a step, and the same
  // way in every session, batch or round of one true value, so no count of replicates averages it
  // out: the interval holds at least a step either side of the ratio (the bootstrap of quantised
  // samples had given a zero-width one, and 10 batch medians one that missed the true ratio).
  if (c.timer_step > 0)
    c.ratio_ci = {std::min(c.ratio_ci.lo, c.ratio * std::exp(-c.timer_step)),
                  std::max(c.ratio_ci.hi, c.ratio * std::exp(c.timer_step))};
  const bool lower = better == Better::lower;
  const double s = lower ? c.ratio : 1.0 / c.ratio;
  const double s_lo = lower ? c.ratio_ci.lo : 1.0 / c.ratio_ci.hi;
  const double s_hi = lower ? c.ratio_ci.hi : 1.0 / c.ratio_ci.lo;
  const double band_hi = 1.0 + t.floor, band_lo = 1.0 / (1.0 + t.floor);
  const bool test_rejects = c.p_value < t.alpha;
  const bool ci_excludes_one = s_lo > 1.0 || s_hi < 1.0;
  const std::string ci = fmt::format("{:.0f}% CI of the ratio {:.4f}..{:.4f}", 100 * t.confidence, c.ratio_ci.lo,
                                     c.ratio_ci.hi);
  const std::string floor = fmt::format("{:g}%", 100 * t.floor);
  const std::string test = c.test.empty() ? "p" : c.test + " p";
  const std::string p = test + (c.p_value < 1e-16 ? " " : " = ") + p_value_text(c.p_value);

  if (c.too_few) {
    c.verdict = Verdict::ambiguous;
    c.why = fmt::format("{} and {} samples: too few for an interval of the ratio ({:.4f}) at {} or more a side; take "
                        "more samples or sessions",
                        c.base_n, c.cand_n, c.ratio, kMinSamplesForInterval);
    return;
  }
  // The ratio a timer step closer to 1: what the floor is judged on when the medians sit on a grid.
  const double s_near = s > 1.0 ? std::max(1.0, s * std::exp(-c.timer_step)) : std::min(1.0, s * std::exp(c.timer_step));
  if (test_rejects && ci_excludes_one) {
    if ((s > band_hi || s < band_lo) && !(s_near > band_hi || s_near < band_lo)) {
      c.verdict = Verdict::ambiguous;
      c.why = fmt::format("{} ({}, {} < {:g}), but within a timer step ({:.2f}%) of the {} floor: the samples' clock "
                          "cannot tell; take more sessions",
                          change_words(s), ci, p, t.alpha, 100 * c.timer_step, floor);
      return;
    }
    if (s > band_hi || s < band_lo) {
      c.verdict = s > 1.0 ? Verdict::slower : Verdict::faster;
      c.why = fmt::format("{}: ratio {:.4f} ({}), {} < {:g}, beyond the {} floor", change_words(s), c.ratio, ci, p,
                          t.alpha, floor);
    } else {
      c.verdict = Verdict::same;
      c.why = fmt::format("a real change ({} < {:g}, {}) of {}, but within the {} floor", p, t.alpha, ci,
                          change_words(s), floor);
    }
    return;
  }
  const std::string not_significant = test_rejects ? fmt::format("{} < {:g} but the {} contains 1", p, t.alpha, ci)
                                                   : fmt::format("not significant ({} >= {:g}); {}", p, t.alpha, ci);
  if (s_lo >= band_lo && s_hi <= band_hi) {
    c.verdict = Verdict::same;
    c.why = not_significant + fmt::format(", within the {} floor", floor);
  } else {
    c.verdict = Verdict::ambiguous;
    const char* advice = c.method == Method::paired    ? "run more rounds (assay ab --rounds)"
                         : c.method == Method::history ? "run more sessions (--repeat) or assay ab"
                                                       : "take more samples or sessions";
    c.why = not_significant + fmt::format(", reaching beyond the {} floor: too noisy to tell; {}", floor, advice);
  }
}

SampleComparison compare_samples(const Sessions& base, const Sessions& cand, Better better, const Thresholds& t) {
  check_side(base);
  check_side(cand);
  const std::vector<double> all_base = pooled(base), all_cand = pooled(cand);
  const std::vector<double> log_base = logs_of(all_base), log_cand = logs_of(all_cand);
  SampleComparison c;
  c.base_n = all_base.size();
  c.cand_n = all_cand.size();
  c.base_sessions = base.size();
  c.cand_sessions = cand.size();
  const MannWhitney mw = mann_whitney(log_cand, log_base);
  c.mann_whitney_p = mw.p_value;
  c.mann_whitney_exact = mw.exact;
  const ShiftEstimate hl = hodges_lehmann_shift(log_base, log_cand, t.confidence);
  c.hl_ratio = std::exp(hl.shift);
  c.hl_ratio_ci = {std::exp(hl.ci.lo), std::exp(hl.ci.hi)};
  c.cliffs_delta = cliffs_delta(log_cand, log_base);
  // Batches need enough samples on both sides (batch_medians gives none below kMinBatchSamples).
  const bool in_runs = all_base.size() >= kMinBatchSamples && all_cand.size() >= kMinBatchSamples &&
                       (serially_correlated(all_base) || serially_correlated(all_cand));
  c.timer_step = relative_timer_step(all_base, all_cand);
  if (base.size() + cand.size() >= 3) by_sessions(base, cand, c.timer_step, t, c);
  else if (in_runs) by_batches(all_base, all_cand, c.timer_step, t, c);
  else by_samples(all_base, all_cand, t, c);
  decide_verdict(c, better, t);
  return c;
}

Verdict combine_time_and_cycles(Verdict time, Verdict cycles) {
  const auto timed = [](Verdict v) {
    return v == Verdict::faster || v == Verdict::slower || v == Verdict::same || v == Verdict::ambiguous;
  };
  if (!timed(time) || !timed(cycles)) return time;
  const bool slower = time == Verdict::slower || cycles == Verdict::slower;
  const bool faster = time == Verdict::faster || cycles == Verdict::faster;
  if (slower != faster) return slower ? Verdict::slower : Verdict::faster;
  if (slower) return Verdict::ambiguous;  // one says SLOWER, the other FASTER
  return time == Verdict::same || cycles == Verdict::same ? Verdict::same : Verdict::ambiguous;
}

}  // namespace assay::stats
