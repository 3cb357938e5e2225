#include "tune/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "stats/summary.hpp"

namespace assay::tune {

namespace {

double geomean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

// The baseline failed: nothing can be compared, the search ends (caught in search_variants).
struct BaselineFailed {
  BaselineFault fault;
  std::string why;
};

bool is_skip(const std::string& why) { return why.rfind("skipped", 0) == 0; }

class Search {
 public:
  Search(std::size_t shapes, Evaluator& ev, const TuneOptions& o, TuneOutcome& out)
      : shapes_(shapes), ev_(ev), o_(o), out_(out) {}

  double median(const std::string& variant, std::size_t shape, double budget) {
    out_.budget_spent += budget;
    return stats::median_of(ev_.measure(variant, shape, budget));
  }
  double baseline_median(std::size_t shape, double budget) {
    try {
      return median(out_.baseline, shape, budget);
    } catch (const NotTimed& e) {
      throw BaselineFailed{BaselineFault::not_timed, fmt::format("shape {}: {}", shape, e.what())};
    }
  }

  // The baseline on every shape, before any variant: a variant's check means nothing against a
  // baseline that cannot run or is wrong here.
  void check_baseline() {
    for (std::size_t s = 0; s < shapes_; ++s)
      if (const std::string why = ev_.check(out_.baseline, s); !why.empty())
        throw BaselineFailed{is_skip(why) ? BaselineFault::skipped : BaselineFault::check_failed,
                             fmt::format("shape {}: {}", s, why)};
  }

  // Measures `alive` (indices into out_.variants) and the baseline with `budget`; returns those
  // that were timed, with their speedups set (a variant that could not be timed is dropped).
  // Shape by shape, the baseline before and after the variants (the geometric mean of the two),
  // so that a drift of the machine over the shape's sessions reaches both sides alike. Results
  // are kept only once every shape is measured: an interruption leaves the last whole round.
  std::vector<std::size_t> measure_all(const std::vector<std::size_t>& alive, double budget) {
    std::vector<std::vector<double>> times(alive.size());
    std::vector<double> base;
    std::vector<std::string> not_timed(alive.size());
    for (std::size_t s = 0; s < shapes_; ++s) {
      const double before = baseline_median(s, budget);
      for (std::size_t k = 0; k < alive.size(); ++k) {
        if (!not_timed[k].empty()) continue;
        try {
          times[k].push_back(median(out_.variants[alive[k]].name, s, budget));
        } catch (const NotTimed& e) {
          not_timed[k] = fmt::format("could not be timed (shape {}: {})", s, e.what());
        }
      }
      base.push_back(std::sqrt(before * baseline_median(s, budget)));
    }
    std::vector<std::size_t> timed;
    for (std::size_t k = 0; k < alive.size(); ++k) {
      VariantOutcome& v = out_.variants[alive[k]];
      if (!not_timed[k].empty()) {
        v.dropped = not_timed[k];
        continue;
      }
      v.speedup.clear();
      for (std::size_t s = 0; s < shapes_; ++s) v.speedup.push_back(base[s] / times[k][s]);
      v.geomean = geomean(v.speedup);
      v.budget = budget;
      timed.push_back(alive[k]);
    }
    return timed;
  }

  std::vector<std::size_t> best_first(std::vector<std::size_t> alive) const {
    std::stable_sort(alive.begin(), alive.end(), [&](std::size_t a, std::size_t b) {
      return out_.variants[a].geomean > out_.variants[b].geomean;
    });
    return alive;
  }

  // The promotion: fresh sessions of the baseline and the variant, alternating, per shape.
  Promotion promote(const std::string& variant) {
    Promotion p{variant, false, {}, ""};
    std::size_t faster = 0, slower = 0;
    for (std::size_t s = 0; s < shapes_; ++s) {
      stats::Sessions base, cand;
      for (std::size_t k = 0; k < o_.promote_sessions; ++k) {
        const bool base_first = k % 2 == 0;  // B V, V B, ...: a drift reaches both alike
        for (int side = 0; side < 2; ++side) {
          const bool is_base = (side == 0) == base_first;
          out_.budget_spent += 1.0;
          if (is_base) {
            try {
              base.push_back(ev_.measure(out_.baseline, s, 1.0));
            } catch (const NotTimed& e) {
              throw BaselineFailed{BaselineFault::not_timed, fmt::format("shape {}: {}", s, e.what())};
            }
            continue;
          }
          try {
            cand.push_back(ev_.measure(variant, s, 1.0));
          } catch (const NotTimed& e) {
            p.per_shape.clear();
            p.why = fmt::format("not promoted: could not be timed in its sessions (shape {}: {})", s, e.what());
            return p;
          }
        }
      }
      stats::Thresholds t = o_.thresholds;
      t.seed ^= s;
      const stats::SampleComparison c = stats::compare_samples(base, cand, stats::Better::lower, t);
      p.per_shape.push_back(c.verdict);
      faster += c.verdict == stats::Verdict::faster;
      slower += c.verdict == stats::Verdict::slower;
    }
    p.promoted = slower == 0 && 2 * faster > shapes_;
    p.why = fmt::format("{} of {} shapes FASTER and {} SLOWER over {}+{} sessions each ({})", faster, shapes_, slower,
                        o_.promote_sessions, o_.promote_sessions,
                        p.promoted ? "promoted" : "not promoted: needs no SLOWER and FASTER on most shapes");
    return p;
  }

 private:
  std::size_t shapes_;
  Evaluator& ev_;
  const TuneOptions& o_;
  TuneOutcome& out_;
};

// Successive halving's rounds for `n` checked variants: each keeps the better half (never fewer
// than exhaustive_up_to), until exhaustive_up_to are left for the full budget.
std::size_t halving_rounds(std::size_t n, std::size_t keep_at_least) {
  keep_at_least = std::max<std::size_t>(1, keep_at_least);  // 0 would never end
  std::size_t rounds = 0;
  for (; n > keep_at_least; ++rounds) n = std::max(keep_at_least, (n + 1) / 2);
  return rounds;
}

// Check, successive halving, drop rules, elite and promotion (see the header).
void run_search(Search& search, const std::vector<std::size_t>& checked, std::size_t shapes, const TuneOptions& o,
                TuneOutcome& out) {
  std::vector<std::size_t> alive = checked;
  // The budget doubles each round, from first_budget or lower where more rounds are needed, so
  // that every round is a short one (100 variants: 1/16 ... 1/2) and halving goes on until
  // exhaustive_up_to are left for the full budget, as successive halving does.
  const std::size_t rounds = halving_rounds(alive.size(), o.exhaustive_up_to);
  double budget = std::min(o.first_budget, std::ldexp(1.0, -static_cast<int>(rounds)));
  for (std::size_t r = 0; r < rounds && alive.size() > o.exhaustive_up_to; ++r, budget *= 2) {
    const std::vector<std::size_t> ranked = search.best_first(search.measure_all(alive, budget));
    const std::size_t keep = std::min(ranked.size(), std::max(o.exhaustive_up_to, (ranked.size() + 1) / 2));
    for (std::size_t k = keep; k < ranked.size(); ++k)
      out.variants[ranked[k]].dropped =
          fmt::format("eliminated by successive halving at budget {:g} (geomean speedup {:.4f})", budget,
                      out.variants[ranked[k]].geomean);
    alive.assign(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep));
  }
  if (!alive.empty()) alive = search.measure_all(alive, 1.0);

  // The drop rules on the full measurements, then the elite.
  std::vector<std::size_t> kept;
  for (const std::size_t i : alive) {
    VariantOutcome& v = out.variants[i];
    std::size_t regressions = 0;
    for (double s : v.speedup) regressions += s < 1.0 / (1.0 + o.regression);
    if (regressions > o.max_regressions)
      v.dropped = fmt::format("regresses on {} of {} shapes (speedup below {:.4f})", regressions, shapes,
                              1.0 / (1.0 + o.regression));
    else if (v.geomean < 1.0 + o.min_gain)
      v.dropped = fmt::format("gains {:.1f}% (geomean speedup {:.4f}), under {:g}%", 100 * (v.geomean - 1), v.geomean,
                              100 * o.min_gain);
    else
      kept.push_back(i);
  }
  const std::vector<std::size_t> ranked = search.best_first(kept);
  for (std::size_t r = 0; r < ranked.size() && r < o.elite; ++r) {
    out.variants[ranked[r]].elite = true;
    out.elite.push_back(out.variants[ranked[r]].name);
  }
  if (!out.elite.empty()) out.promotion = search.promote(out.elite.front());
}

}  // namespace

TuneOutcome search_variants(const std::vector<std::string>& variants, const std::string& baseline, std::size_t shapes,
                 Evaluator& evaluator, const TuneOptions& o) {
  if (shapes == 0) throw std::invalid_argument("tune: no shapes");
  if (variants.empty()) throw std::invalid_argument("tune: no variants");
  if (std::find(variants.begin(), variants.end(), baseline) != variants.end())
    throw std::invalid_argument("tune: the baseline '" + baseline + "' is also a variant");
  TuneOutcome out;
  out.baseline = baseline;
  for (const auto& name : variants) {
    VariantOutcome v;  // a designated initialiser named one member of eight and drew -Wmissing-field-initializers
    v.name = name;
    out.variants.push_back(std::move(v));
  }
  Search search(shapes, evaluator, o, out);
  try {
    search.check_baseline();
    // Every variant is checked on every shape before it is timed; one failure and it is out.
    std::vector<std::size_t> checked;
    for (std::size_t i = 0; i < out.variants.size(); ++i) {
      VariantOutcome& v = out.variants[i];
      for (std::size_t s = 0; s < shapes && v.check_failure.empty(); ++s)
        if (const std::string why = evaluator.check(v.name, s); !why.empty()) {
          v.check_failure = fmt::format("shape {}: {}", s, why);
          v.check = is_skip(why) ? CheckEnd::skipped : CheckEnd::failed;
        }
      // A check the evaluator skipped (its backend cannot run here) is no failure of the variant;
      // it is out all the same.
      if (v.check != CheckEnd::passed)
        v.dropped = (v.check == CheckEnd::skipped ? "not run here (" : "failed its check (") + v.check_failure + ")";
      else
        checked.push_back(i);
    }
    run_search(search, checked, shapes, o, out);
  } catch (const BaselineFailed& b) {
    out.baseline_fault = b.fault;
    out.baseline_failure = b.why;
  } catch (const Interrupted&) {
    out.interrupted = true;
  }
  if (out.baseline_fault != BaselineFault::none || out.interrupted)
    for (auto& v : out.variants)
      if (v.dropped.empty() && !v.elite)
        v.dropped = out.interrupted ? "the search was interrupted before its end" : "the baseline failed: not compared";
  return out;
}

}  // namespace assay::tune
