#include "stats/session_noise.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "stats/distributions.hpp"
#include "stats/summary.hpp"

namespace assay::stats {

std::optional<SessionSpread> session_spread(const std::vector<double>& medians) {
  if (medians.size() < kMinHistorySessions) return std::nullopt;
  double sum_sq = 0;
  for (std::size_t i = 1; i < medians.size(); ++i) {
    if (!(medians[i] > 0) || !(medians[i - 1] > 0) || !std::isfinite(medians[i]) || !std::isfinite(medians[i - 1]))
      return std::nullopt;
    const double d = std::log(medians[i]) - std::log(medians[i - 1]);
    sum_sq += d * d;
  }
  // A difference of two sessions has twice the variance of one.
  return SessionSpread{std::sqrt(sum_sq / static_cast<double>(medians.size() - 1) / 2.0), medians.size()};
}

void widen_by_session_spread(SampleComparison& c, const SessionSpread& spread, Better better, const Thresholds& t) {
  const double z = normal_quantile(0.5 + t.confidence / 2.0);
  const double se_within = (std::log(c.ratio_ci.hi) - std::log(c.ratio_ci.lo)) / (2.0 * z);
  // Earlier session medians on the timer's grid that agree exactly are not noise-free either.
  const double sigma = std::max(spread.sigma_log, c.timer_step / std::sqrt(12.0));
  const double between = 2.0 * sigma * sigma;
  const double se = std::sqrt(se_within * se_within + between);
  // Degrees of freedom (Welch-Satterthwaite, the within-session part taken as known): von Neumann's
  // estimator from K sessions has 2(K-1)^2/(3K-4) of them, not K-1 (which gave 1.6% false alarms at
  // alpha = 1% with K = 5).
  const double k = static_cast<double>(spread.sessions);
  const double df_between = 2.0 * (k - 1.0) * (k - 1.0) / (3.0 * k - 4.0);
  // (at most 10^6: the normal, for which the t functions need a finite df)
  const double df = between > 0 ? std::min(1e6, df_between * std::pow((se_within * se_within + between) / between, 2.0))
                                 : 1e6;
  const double d = std::log(c.ratio);
  c.method = Method::history;
  c.test = fmt::format("t-test with a between-session spread of {:.2f}% from {} earlier sessions",
                       100.0 * sigma, spread.sessions);
  if (se == 0) {
    c.p_value = d == 0 ? 1.0 : 0.0;
    c.ratio_ci = {c.ratio, c.ratio};
  } else {
    c.p_value = student_t_two_sided_p(d / se, df);
    const double half = student_t_two_sided_quantile(t.confidence, df) * se;
    c.ratio_ci = {std::exp(d - half), std::exp(d + half)};
  }
  decide_verdict(c, better, t);
}

SampleComparison compare_paired_rounds(const Sessions& base_rounds, const Sessions& cand_rounds, Better better,
                                       const Thresholds& t) {
  if (base_rounds.size() != cand_rounds.size())
    throw std::invalid_argument(fmt::format("compare: paired rounds need as many rounds on each side ({} and {})",
                                            base_rounds.size(), cand_rounds.size()));
  if (base_rounds.size() < 2) throw std::invalid_argument("compare: paired rounds need at least 2 rounds");
  // The pooled statistics as for one session per side (this also checks every sample).
  std::vector<double> all_base, all_cand;
  for (const auto& r : base_rounds) all_base.insert(all_base.end(), r.begin(), r.end());
  for (const auto& r : cand_rounds) all_cand.insert(all_cand.end(), r.begin(), r.end());
  for (const auto& r : base_rounds)
    if (r.empty()) throw std::invalid_argument("compare: a round has no samples");
  for (const auto& r : cand_rounds)
    if (r.empty()) throw std::invalid_argument("compare: a round has no samples");
  SampleComparison c = compare_samples({all_base}, {all_cand}, better, t);

  std::vector<double> d, lb, lc;
  for (std::size_t r = 0; r < base_rounds.size(); ++r) {
    lb.push_back(std::log(median_of(base_rounds[r])));
    lc.push_back(std::log(median_of(cand_rounds[r])));
    d.push_back(lc.back() - lb.back());
  }
  const double n = static_cast<double>(d.size());
  const double mean = std::accumulate(d.begin(), d.end(), 0.0) / n;
  double ss = 0;
  for (double x : d) ss += (x - mean) * (x - mean);
  // A difference of two round medians on the timer's grid has at least twice a rounding error's
  // variance (step^2 / 12 each): equal differences in every round are not noise-free.
  const double step = c.timer_step, floor_var = step * step / 6.0;  // compare_samples' (a sort of every sample)
  const bool floored = ss / (n - 1.0) < floor_var;
  const double se = std::sqrt(std::max(ss / (n - 1.0), floor_var) / n);
  c.method = Method::paired;
  c.base_sessions = c.cand_sessions = 1;
  c.base_median = std::exp(std::accumulate(lb.begin(), lb.end(), 0.0) / n);
  c.cand_median = std::exp(std::accumulate(lc.begin(), lc.end(), 0.0) / n);
  c.ratio = std::exp(mean);
  c.test = fmt::format("paired t-test of {} round pairs", d.size());
  if (floored && step > 0) c.test += fmt::format(" (spread floored at a timer step of {:.2f}%)", 100.0 * step);
  if (se == 0) {
    c.p_value = mean == 0 ? 1.0 : 0.0;
    c.ratio_ci = {c.ratio, c.ratio};
  } else {
    c.p_value = student_t_two_sided_p(mean / se, n - 1.0);
    const double half = student_t_two_sided_quantile(t.confidence, n - 1.0) * se;
    c.ratio_ci = {std::exp(mean - half), std::exp(mean + half)};
  }
  decide_verdict(c, better, t);
  return c;
}

int sequential_looks(std::uint64_t rounds, std::uint64_t max_rounds) {
  return max_rounds > rounds ? static_cast<int>((max_rounds - rounds) / 2) + 1 : 1;
}

Thresholds at_each_look(Thresholds t, int looks) {
  if (looks > 1) {
    t.alpha /= looks;
    t.confidence = 1.0 - (1.0 - t.confidence) / looks;
  }
  return t;
}

}  // namespace assay::stats
