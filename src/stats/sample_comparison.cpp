#include "stats/sample_comparison.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "stats/rank_tests.hpp"

namespace assay::stats {
namespace {

std::vector<double> pooled_logs(const Sessions& side) {
  std::vector<double> out;
  for (const auto& s : side)
    for (double x : s) {
      if (!(x > 0.0) || !std::isfinite(x))
        throw std::invalid_argument("compare: a sample is zero, negative or not finite");
      out.push_back(std::log(x));
    }
  if (out.empty()) throw std::invalid_argument("compare: a side has no samples");
  return out;
}

// "5.0% slower" / "3.1% faster" for a slowdown factor s.
std::string change_words(double s) {
  if (s >= 1.0) return fmt::format("{:.1f}% slower", 100.0 * (s - 1.0));
  return fmt::format("{:.1f}% faster", 100.0 * (1.0 / s - 1.0));
}

}  // namespace

std::string p_value_text(double p) {
  if (p < 1e-16) return "< 1e-16";
  return p < 1e-3 ? fmt::format("{:.1e}", p) : fmt::format("{:.3f}", p);
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

void decide_verdict(SampleComparison& c, Better better, const Thresholds& t) {
  const bool lower = better == Better::lower;
  const double s = lower ? c.ratio : 1.0 / c.ratio;
  const double s_lo = lower ? c.ratio_ci.lo : 1.0 / c.ratio_ci.hi;
  const double s_hi = lower ? c.ratio_ci.hi : 1.0 / c.ratio_ci.lo;
  const double band_hi = 1.0 + t.floor, band_lo = 1.0 / (1.0 + t.floor);
  const bool rank_test = c.p_value < t.alpha;
  const bool ci_excludes_one = s_lo > 1.0 || s_hi < 1.0;
  const std::string ci = fmt::format("{:.0f}% CI of the ratio {:.4f}..{:.4f}", 100 * t.confidence,
                                     c.ratio_ci.lo, c.ratio_ci.hi);
  const std::string floor = fmt::format("{:g}%", 100 * t.floor);
  const std::string p = "Mann-Whitney p " + std::string(c.p_value < 1e-16 ? "" : "= ") + p_value_text(c.p_value);

  if (rank_test && ci_excludes_one) {
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
  const std::string not_significant =
      rank_test ? fmt::format("{} < {:g} but the {} contains 1", p, t.alpha, ci)
                : fmt::format("not significant ({} >= {:g}); {}", p, t.alpha, ci);
  if (s_lo >= band_lo && s_hi <= band_hi) {
    c.verdict = Verdict::same;
    c.why = not_significant + fmt::format(", within the {} floor", floor);
  } else {
    c.verdict = Verdict::ambiguous;
    c.why = not_significant + fmt::format(", reaching beyond the {} floor: too noisy to tell; take more samples "
                                          "or sessions", floor);
  }
}

SampleComparison compare_samples(const Sessions& base, const Sessions& cand, Better better, const Thresholds& t) {
  const std::vector<double> log_base = pooled_logs(base), log_cand = pooled_logs(cand);
  SampleComparison c;
  c.base_n = log_base.size();
  c.cand_n = log_cand.size();
  c.base_sessions = base.size();
  c.cand_sessions = cand.size();
  c.base_median = pooled_median(base);
  c.cand_median = pooled_median(cand);
  c.ratio = c.cand_median / c.base_median;
  c.ratio_ci = bootstrap_ratio_of_medians_ci(base, cand, {t.resamples, t.confidence, t.seed});
  const ShiftEstimate hl = hodges_lehmann_shift(log_base, log_cand, t.confidence);
  c.hl_ratio = std::exp(hl.shift);
  c.hl_ratio_ci = {std::exp(hl.ci.lo), std::exp(hl.ci.hi)};
  const MannWhitney mw = mann_whitney(log_cand, log_base);
  c.p_value = mw.p_value;
  c.p_exact = mw.exact;
  c.cliffs_delta = cliffs_delta(log_cand, log_base);
  decide_verdict(c, better, t);
  return c;
}

}  // namespace assay::stats
