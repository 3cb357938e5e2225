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

class Search {
 public:
  Search(std::size_t shapes, Evaluator& ev, const TuneOptions& o, TuneOutcome& out)
      : shapes_(shapes), ev_(ev), o_(o), out_(out) {}

  double median(const std::string& variant, std::size_t shape, double budget) {
    out_.budget_spent += budget;
    return stats::median_of(ev_.measure(variant, shape, budget));
  }

  // Measures `alive` (indices into out_.variants) and the baseline with `budget`; sets speedups.
  // Shape by shape, the baseline before and after the variants (the geometric mean of the two),
  // so that a drift of the machine over the shape's sessions reaches both sides alike.
  void measure_all(const std::vector<std::size_t>& alive, double budget) {
    for (const std::size_t i : alive) {
      out_.variants[i].speedup.assign(shapes_, 1.0);
      out_.variants[i].budget = budget;
    }
    for (std::size_t s = 0; s < shapes_; ++s) {
      const double before = median(out_.baseline, s, budget);
      std::vector<double> m;
      for (const std::size_t i : alive) m.push_back(median(out_.variants[i].name, s, budget));
      const double base = std::sqrt(before * median(out_.baseline, s, budget));
      for (std::size_t k = 0; k < alive.size(); ++k) out_.variants[alive[k]].speedup[s] = base / m[k];
    }
    for (const std::size_t i : alive) out_.variants[i].geomean = geomean(out_.variants[i].speedup);
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
          (is_base ? base : cand).push_back(ev_.measure(is_base ? out_.baseline : variant, s, 1.0));
          out_.budget_spent += 1.0;
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

}  // namespace

TuneOutcome search_variants(const std::vector<std::string>& variants, const std::string& baseline, std::size_t shapes,
                 Evaluator& evaluator, const TuneOptions& o) {
  if (shapes == 0) throw std::invalid_argument("tune: no shapes");
  if (variants.empty()) throw std::invalid_argument("tune: no variants");
  if (std::find(variants.begin(), variants.end(), baseline) != variants.end())
    throw std::invalid_argument("tune: the baseline '" + baseline + "' is also a variant");
  TuneOutcome out;
  out.baseline = baseline;
  Search search(shapes, evaluator, o, out);

  // Every variant is checked on every shape before it is timed; one failure and it is out.
  std::vector<std::size_t> alive;
  for (const auto& name : variants) {
    VariantOutcome v;
    v.name = name;
    for (std::size_t s = 0; s < shapes && v.check_failure.empty(); ++s)
      if (const std::string why = evaluator.check(name, s); !why.empty())
        v.check_failure = fmt::format("shape {}: {}", s, why);
    // A check the evaluator skipped (its backend cannot run here: wrong GPU, library missing) is no
    // failure of the variant; it is out all the same.
    if (!v.check_failure.empty())
      v.dropped = (v.check_failure.find(": skipped") != std::string::npos ? "not run here (" : "failed its check (") +
                  v.check_failure + ")";
    else alive.push_back(out.variants.size());
    out.variants.push_back(std::move(v));
  }

  // Successive halving down to a space small enough to measure in full.
  for (double budget = o.first_budget; alive.size() > o.exhaustive_up_to && budget < 1.0; budget *= 2) {
    search.measure_all(alive, budget);
    const std::vector<std::size_t> ranked = search.best_first(alive);
    const std::size_t keep = std::max(o.exhaustive_up_to, (ranked.size() + 1) / 2);
    for (std::size_t r = keep; r < ranked.size(); ++r)
      out.variants[ranked[r]].dropped =
          fmt::format("eliminated by successive halving at budget {:g} (geomean speedup {:.4f})", budget,
                      out.variants[ranked[r]].geomean);
    alive.assign(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(std::min(keep, ranked.size())));
  }
  if (!alive.empty()) search.measure_all(alive, 1.0);

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
  return out;
}

}  // namespace assay::tune
