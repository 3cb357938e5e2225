#include "compare/comparison.hpp"

#include "core/ids.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <set>
#include <stdexcept>

#include "core/error.hpp"
#include "core/results.hpp"
#include "store/case_key.hpp"

namespace assay::compare {
namespace {

using stats::Verdict;


// Everything one side holds for one case identity, over all its sessions.
struct Side {
  const CaseRecord* first = nullptr;  // for the id, bench and backend
  stats::Sessions samples;            // one entry per session where the case is ok
  std::string failed_reason;          // the first check-failed or error record
  std::string skipped_reason;
  std::size_t order = 0;              // first appearance
  std::set<double> gaps_us;           // the sample gaps its timed sessions kept (0: none)
  std::vector<std::uint64_t> round_samples;  // of its first timed session: samples per round
};
using SideMap = std::map<std::string, Side>;

// The metric of each sample; empty when the record cannot give it.
std::vector<double> metric_samples(const CaseRecord& c, Metric m) {
  if (c.status != CaseStatus::ok || !c.measurement || c.measurement->samples_ns.empty()) return {};
  const auto& t = c.measurement->samples_ns;
  if (m == Metric::time) return t;
  if (m == Metric::cycles) return cycle_samples(*c.measurement);
  if (!c.derived) return {};
  const double peak = c.derived->peak_tflops;
  if (m == Metric::pct_of_peak && !(peak > 0)) return {};
  std::vector<double> v;
  for (double ns : t) {
    const double tflops = c.derived->flops / ns / 1e3;
    v.push_back(m == Metric::tflops ? tflops : m == Metric::gbs ? c.derived->min_bytes / ns : 100.0 * tflops / peak);
  }
  return v;
}

// A case with no measurement in one session (failed, skipped) has a key without a mode; in the
// side's other sessions the same case has one. One case is one row: the session without a mode
// joins the only moded entry of its case (several modes across sessions: left apart).
void fold_sessions_without_mode(SideMap& sides) {
  std::map<std::string, std::vector<std::string>> moded;  // key without mode -> the keys with one
  for (const auto& [k, side] : sides)
    if (const std::string bare = store::key_text_without_mode(k); bare != k) moded[bare].push_back(k);
  for (const auto& [bare, keys] : moded) {
    const auto it = sides.find(bare);
    if (keys.size() != 1 || it == sides.end()) continue;
    Side& into = sides.at(keys.front());
    const Side& from = it->second;
    if (into.failed_reason.empty()) into.failed_reason = from.failed_reason;
    if (into.skipped_reason.empty()) into.skipped_reason = from.skipped_reason;
    if (from.order < into.order) {
      into.order = from.order;
      into.first = from.first;
    }
    sides.erase(it);
  }
}

SideMap collect(const store::RunSet& set, const CompareOptions& o, const std::optional<std::regex>& filter) {
  SideMap sides;
  for (const ResultsDocument& doc : set.sessions) {
    for (const CaseRecord& c : doc.cases) {
      if (filter && !std::regex_search(c.id, *filter)) continue;
      const store::CaseKey key = store::case_key(doc.run, c);
      auto [it, inserted] = sides.try_emplace(o.normalize_peak ? key.text_without_gpu() : key.text());
      Side& s = it->second;
      if (inserted) {
        s.first = &c;
        s.order = sides.size();
      }
      const bool not_run = c.status == CaseStatus::skipped || c.status == CaseStatus::interrupted;
      if (c.status != CaseStatus::ok && !not_run) {  // failed, error, crashed, timeout, implausible
        if (s.failed_reason.empty()) s.failed_reason = case_status_name(c.status) + ": " + c.reason;
      } else if (not_run) {
        if (s.skipped_reason.empty()) s.skipped_reason = c.reason;
      } else if (auto v = metric_samples(c, o.metric); !v.empty()) {
        if (s.samples.empty()) s.round_samples = c.measurement->round_samples;
        s.samples.push_back(std::move(v));
        s.gaps_us.insert(c.measurement->gap_us);
      } else if (s.skipped_reason.empty()) {
        s.skipped_reason = o.metric == Metric::time     ? "no samples"
                           : o.metric == Metric::cycles ? "no cycles (no SM clock was recorded with its samples)"
                                                        : "no " + metric_name(o.metric) +
                                                              " (the work or the peak of this case is unknown)";
      }
    }
  }
  fold_sessions_without_mode(sides);
  return sides;
}

// The other side's key for `key`: the same key, or one equal but for the mode where one of
// the two has none (a case without a measurement, e.g. a failed check, has no mode), so that
// a candidate whose check failed still meets its base case.
std::optional<std::string> partner(const std::string& key, const SideMap& other) {
  if (other.count(key)) return key;
  const std::string bare = store::key_text_without_mode(key);
  for (const auto& [k, side] : other)
    if (store::key_text_without_mode(k) == bare && (k == bare || key == bare)) return k;
  return std::nullopt;
}

// Whether the two sides are the base and the candidate of one `assay ab` run.
bool ab_pair(const store::RunSet& base, const store::RunSet& cand) {
  if (base.sessions.size() != 1 || cand.sessions.size() != 1) return false;
  const RunRecord &b = base.sessions.front().run, &c = cand.sessions.front().run;
  return !b.ab_pair.empty() && b.ab_pair == c.ab_pair && b.ab_side == "base" && c.ab_side == "candidate";
}

// The looks a sequential `assay ab` run allowed each case (run.environment "ab.looks", written
// by --max-rounds; 1 when absent, bad input when not a count): its paired verdicts are tested at
// alpha / looks.
int ab_looks(const store::RunSet& base) {
  const auto& env = base.sessions.front().run.environment;
  const auto it = env.find("ab.looks");
  if (it == env.end()) return 1;
  try {
    return std::max(1, std::stoi(it->second));
  } catch (const std::exception&) {
    throw InputError(base.origin + ": run.environment \"ab.looks\" is '" + it->second + "', not a count");
  }
}

std::set<std::string> gpus_of(const store::RunSet& set) {
  std::set<std::string> g;
  for (const auto& d : set.sessions) g.insert(d.run.device.name);
  return g;
}

std::string joined(const std::set<std::string>& items) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

std::optional<stats::Summary> pooled_summary(const Side* side) {
  if (!side || side->samples.empty()) return std::nullopt;
  std::vector<double> all;
  for (const auto& s : side->samples) all.insert(all.end(), s.begin(), s.end());
  return stats::summarize(all);
}

// The samples of one session split into its rounds; empty when they do not add up.
stats::Sessions split_rounds(const std::vector<double>& samples, const std::vector<std::uint64_t>& counts) {
  stats::Sessions rounds;
  std::size_t at = 0;
  for (const std::uint64_t n : counts) {
    if (n == 0 || at + n > samples.size()) return {};
    rounds.emplace_back(samples.begin() + static_cast<std::ptrdiff_t>(at), samples.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return at == samples.size() ? rounds : stats::Sessions{};
}

// The statistics of a case with timings on both sides, and which noise they allowed for:
// paired rounds for the two sides of one `assay ab` run (ab_looks > 0; tested at alpha / looks),
// sessions when there are three or more, otherwise one session a side, widened by the history's
// between-session spread when known.
void decide_timed(const std::string& key, const Side& base, const Side& cand, int ab_looks, const CompareOptions& o,
                  CaseComparison& r) {
  stats::Thresholds t = o.thresholds;
  t.seed ^= fnv1a64(key);  // each case its own stream, the same on every run of compare
  const stats::Better better = metric_direction(o.metric);
  if (ab_looks > 0 && base.samples.size() == 1 && cand.samples.size() == 1) {
    const auto b = split_rounds(base.samples.front(), base.round_samples);
    const auto c = split_rounds(cand.samples.front(), cand.round_samples);
    if (b.size() >= 2 && b.size() == c.size()) {
      r.stats = stats::compare_paired_rounds(b, c, better, stats::at_each_look(t, ab_looks));
      r.noise = ab_looks > 1 ? fmt::format("paired rounds ({} pairs; sequential, {} looks)", b.size(), ab_looks)
                             : fmt::format("paired rounds ({} pairs)", b.size());
      return;
    }
  }
  r.stats = stats::compare_samples(base.samples, cand.samples, better, t);
  if (r.stats->method == stats::Method::sessions) {
    r.noise = fmt::format("sessions ({}+{})", base.samples.size(), cand.samples.size());
    return;
  }
  if (const auto it = o.session_spreads.find(key); it != o.session_spreads.end()) {
    stats::widen_by_session_spread(*r.stats, it->second, better, t);
    r.noise = fmt::format("history ({} sessions)", it->second.sessions);
    return;
  }
  r.noise = "within-session";
  r.drift_covered = false;
}

CaseComparison decide(const std::string& key, const Side* base, const Side* cand, int ab_looks,
                      const CompareOptions& o) {
  const Side& any = cand ? *cand : *base;
  CaseComparison r;
  r.case_id = any.first->id;
  r.key = key;
  r.bench = any.first->bench;
  r.backend = any.first->backend;
  r.base = pooled_summary(base);
  r.cand = pooled_summary(cand);
  if (cand && !cand->failed_reason.empty()) {
    r.verdict = Verdict::failed;
    r.why = "the candidate's case is " + cand->failed_reason;
  } else if (!cand) {
    r.verdict = Verdict::gone;
    r.why = "in the base only";
  } else if (cand->samples.empty()) {
    r.verdict = Verdict::gone;
    r.why = "no timing in the candidate: " + cand->skipped_reason;
  } else if (!base) {
    r.verdict = Verdict::new_case;
    r.why = "in the candidate only";
  } else if (base->samples.empty()) {
    r.verdict = Verdict::new_case;
    r.why = "no timing in the base: " + (base->failed_reason.empty() ? base->skipped_reason : base->failed_reason);
  } else {
    try {
      decide_timed(key, *base, *cand, ab_looks, o, r);
    } catch (const std::invalid_argument& e) {  // e.g. a sample of 0 ns in a hand-made document
      throw InputError(r.case_id + ": " + e.what());
    }
    r.verdict = r.stats->verdict;
    r.why = r.stats->why;
  }
  return r;
}

}  // namespace

std::optional<Metric> parse_metric(const std::string& name) {
  for (Metric m : {Metric::time, Metric::tflops, Metric::gbs, Metric::pct_of_peak, Metric::cycles})
    if (metric_name(m) == name) return m;
  return std::nullopt;
}

std::string metric_name(Metric m) {
  switch (m) {
    case Metric::time: return "time";
    case Metric::tflops: return "tflops";
    case Metric::gbs: return "gbs";
    case Metric::pct_of_peak: return "pct_of_peak";
    case Metric::cycles: return "cycles";
  }
  return "time";
}

stats::Better metric_direction(Metric m) {
  return m == Metric::time || m == Metric::cycles ? stats::Better::lower : stats::Better::higher;
}

std::size_t Comparison::count(Verdict v) const {
  std::size_t n = 0;
  for (const auto& c : cases) n += c.verdict == v;
  return n;
}

namespace {

// One metric's comparison (compare_runs without --also-cycles).
Comparison compare_on(const store::RunSet& base, const store::RunSet& cand, const CompareOptions& options) {
  CompareOptions o = options;
  if (o.normalize_peak) o.metric = Metric::pct_of_peak;
  std::optional<std::regex> filter;
  if (!o.filter.empty()) {
    try {
      filter.emplace(o.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw InputError("--filter '" + o.filter + "': not a valid regular expression: " + e.what());
    }
  }
  const SideMap b = collect(base, o, filter), c = collect(cand, o, filter);
  const bool paired = ab_pair(base, cand);
  const int looks = paired ? ab_looks(base) : 0;  // 0: not an ab pair

  Comparison out{base.label, cand.label, base.origin, cand.origin, o.metric, o.thresholds, {}, std::nullopt, 0, {}};
  std::vector<std::pair<std::size_t, std::string>> cand_order;
  for (const auto& [k, s] : c) cand_order.emplace_back(s.order, k);
  std::sort(cand_order.begin(), cand_order.end());
  std::set<std::string> base_used;
  std::size_t gap_mismatches = 0;
  std::set<double> base_gaps, cand_gaps;  // of the mismatched pairs
  for (const auto& [order, k] : cand_order) {
    const auto bk = partner(k, b);
    if (bk) base_used.insert(*bk);
    if (bk) {
      const auto &bg = b.at(*bk).gaps_us, &cg = c.at(k).gaps_us;
      if (!bg.empty() && !cg.empty() && bg != cg) {
        ++gap_mismatches;
        base_gaps.insert(bg.begin(), bg.end());
        cand_gaps.insert(cg.begin(), cg.end());
      }
    }
    out.cases.push_back(decide(k, bk ? &b.at(*bk) : nullptr, &c.at(k), looks, o));
  }
  std::vector<std::pair<std::size_t, std::string>> gone;
  for (const auto& [k, s] : b)
    if (!base_used.count(k)) gone.emplace_back(s.order, k);
  std::sort(gone.begin(), gone.end());
  for (const auto& [order, k] : gone) out.cases.push_back(decide(k, &b.at(k), nullptr, looks, o));

  double log_sum = 0;
  for (const auto& cc : out.cases)
    if (cc.stats) {
      log_sum += std::log(cc.stats->ratio);
      ++out.geomean_cases;
    }
  if (out.geomean_cases > 0) out.geomean_ratio = std::exp(log_sum / static_cast<double>(out.geomean_cases));

  const auto gb = gpus_of(base), gc = gpus_of(cand);
  if (gb != gc && !o.normalize_peak)
    out.notes.push_back("the base ran on " + joined(gb) + ", the candidate on " + joined(gc) +
                        ": cases are not compared across GPU models (--normalize peak compares % of peak)");
  // Under a power cap the GPU's idle between samples sets its clock (docs/suite-format.md, Sample
  // gap): a difference between such cases is partly the protocol's.
  if (gap_mismatches > 0) {
    const auto list = [](const std::set<double>& gaps) {
      std::string s;
      for (double g : gaps) s += fmt::format("{}{:g}", s.empty() ? "" : "/", g);
      return s + " us";
    };
    out.notes.push_back(fmt::format(
        "{} matched case{} measured with different sample gaps (base {}, candidate {}; suite gap_us, 0: none): "
        "on a power-capped GPU the idle between samples moves the clock, so part of their difference is the protocol's",
        gap_mismatches, gap_mismatches == 1 ? " was" : "s were", list(base_gaps), list(cand_gaps)));
  }
  // A case measured after a clean flush on one side only is NEW there and GONE on the other (its
  // mode is "cold+clean" on that side, "cold" on the other): say why.
  {
    const std::string cold = "cold", clean = store::key_mode(cold, std::string(kL2FlushClean));
    // 1: a cold case after a clean flush, 0: after a memset, -1: not a cold case.
    const auto flush = [&](const std::string& key) {
      const std::string mode = store::mode_in_key_text(key);
      return mode == clean ? 1 : mode == cold ? 0 : -1;
    };
    std::map<std::string, int> gone_flush;  // GONE cold cases: key without its mode -> flush
    for (const auto& cc : out.cases)
      if (cc.verdict == Verdict::gone && flush(cc.key) >= 0) gone_flush.emplace(store::key_text_without_mode(cc.key), flush(cc.key));
    std::size_t by_flush = 0;
    for (const auto& cc : out.cases)
      if (cc.verdict == Verdict::new_case && flush(cc.key) >= 0)
        if (const auto it = gone_flush.find(store::key_text_without_mode(cc.key)); it != gone_flush.end() && it->second != flush(cc.key))
          ++by_flush;
    if (by_flush > 0)
      out.notes.push_back(fmt::format(
          "{} case{} NEW on one side and GONE on the other only because one side flushed L2 clean (mode cold+clean) and "
          "the other with a memset: different measurements, not compared (docs/compare.md)",
          by_flush, by_flush == 1 ? " is" : "s are"));
  }
  if (paired) out.notes.push_back("the two sides are one `assay ab` run: base and candidate alternated round by round, "
                                  "so the verdicts compare the rounds pair by pair");
  const auto single = std::count_if(out.cases.begin(), out.cases.end(), [](const CaseComparison& cc) {
    return !cc.drift_covered && (cc.verdict == Verdict::faster || cc.verdict == Verdict::slower);
  });
  if (single > 0)
    out.notes.push_back(fmt::format(
        "{} FASTER/SLOWER verdict{} (marked ?) rest{} on one session a side and no history of the case ({} fewer "
        "than {} earlier sessions of this suite on this GPU in this mode): one session cannot tell drift between "
        "sessions (clock, power state) from a change, so they do not fail the gate; use `assay ab`, --repeat, or "
        "let the history grow",
        single, single == 1 ? "" : "s", single == 1 ? "s" : "",
        o.history_origin.empty() ? "no history read:" : "the history " + o.history_origin + " holds",
        stats::kMinHistorySessions));
  if (out.cases.empty()) throw InputError("no case to compare" + (o.filter.empty() ? "" : " matches --filter '" + o.filter + "'"));
  return out;
}

std::string ratio_text(const CaseComparison& c) {
  if (!c.stats) return stats::verdict_name(c.verdict);
  return fmt::format("{} {:.3f} [{:.3f}, {:.3f}]", stats::verdict_name(c.verdict), c.stats->ratio, c.stats->ratio_ci.lo,
                     c.stats->ratio_ci.hi);
}

}  // namespace

void check_also_cycles(const CompareOptions& options) {
  if (options.also_cycles && (options.metric != Metric::time || options.normalize_peak))
    throw InputError("--also-cycles: judges time and cycles together; use it with --metric time and without --normalize");
}

Comparison compare_runs(const store::RunSet& base, const store::RunSet& cand, const CompareOptions& options) {
  if (!options.also_cycles) return compare_on(base, cand, options);
  check_also_cycles(options);
  CompareOptions half = options;
  half.also_cycles = false;
  half.thresholds = stats::at_each_look(options.thresholds, 2);  // alpha / 2 each: A/A false alarms stay under alpha
  Comparison out = compare_on(base, cand, half);
  half.metric = Metric::cycles;
  std::map<std::string, CaseComparison> by_cycles;
  for (auto& cc : compare_on(base, cand, half).cases) by_cycles.emplace(cc.case_id + "\n" + cc.key, std::move(cc));
  std::size_t without = 0, clock_only = 0;
  for (auto& cc : out.cases) {
    const auto it = by_cycles.find(cc.case_id + "\n" + cc.key);
    if (!cc.stats) continue;
    if (it == by_cycles.end() || !it->second.stats) {
      ++without;
      continue;
    }
    const Verdict both = stats::combine_time_and_cycles(cc.verdict, it->second.verdict);
    cc.why = fmt::format("time {}, cycles {}{}", ratio_text(cc), ratio_text(it->second),
                         both == cc.verdict ? "" : ": " + stats::verdict_name(both) + " by cycles");
    if (both != cc.verdict && it->second.verdict == both) cc.drift_covered = it->second.drift_covered;
    // One session a side, time moved and the work (cycles) did not, by less than time's ratio
    // beyond its CI: the SM clock differed between the two sessions. A power state drifting
    // between sessions does that (measured: one A/A session of 10 on the H100 ran assay's bf16
    // 4096^3 GEMM 7% slower at 3% fewer cycles); so does a change that costs power. One session
    // cannot tell which: marked, not gated.
    const auto& cy = *it->second.stats;
    const bool clock = (both == Verdict::slower && cy.ratio_ci.hi < cc.stats->ratio) ||
                       (both == Verdict::faster && cy.ratio_ci.lo > cc.stats->ratio);
    const bool one_session_a_side = cc.stats->method != stats::Method::sessions && cc.stats->method != stats::Method::paired;
    if (one_session_a_side && clock && it->second.verdict != both && cc.drift_covered) {
      cc.drift_covered = false;
      cc.why += ": by time alone (the clock differed)";
      ++clock_only;
    }
    cc.verdict = both;
  }
  if (clock_only)
    out.notes.push_back(fmt::format(
        "{} FASTER/SLOWER verdict{} (marked ?) by time alone on one session a side: the cycles did not move with the "
        "time, so the SM clock differed between the two sessions, which one session cannot tell from a change that "
        "costs power; not gated; `assay ab` tells (its rounds alternate, so a power state cancels and a power cost "
        "does not)",
        clock_only, clock_only == 1 ? "" : "s"));
  out.notes.push_back(fmt::format(
      "--also-cycles: each verdict from time and from cycles (time x SM clock), each tested at alpha / 2 = {:g}: SLOWER "
      "or FASTER when either says so and the other not the opposite, SAME when either says SAME and neither more{}",
      half.thresholds.alpha,
      without ? fmt::format("; {} case{} without a clock probe judged on time alone", without, without == 1 ? "" : "s")
              : ""));
  return out;
}

std::string verdict_label(const CaseComparison& c) {
  const bool unsure = !c.drift_covered && (c.verdict == Verdict::faster || c.verdict == Verdict::slower);
  return stats::verdict_name(c.verdict) + (unsure ? "?" : "");
}

std::string comparison_summary_line(const Comparison& c) {
  std::string s;
  for (Verdict v : {Verdict::faster, Verdict::slower, Verdict::same, Verdict::ambiguous, Verdict::new_case,
                    Verdict::gone, Verdict::failed})
    s += fmt::format("{}{} {}", s.empty() ? "" : ", ", c.count(v), stats::verdict_name(v));
  if (c.geomean_ratio)
    s += fmt::format("; geomean {} ratio cand/base {:.4f} over {} case{}", metric_name(c.metric), *c.geomean_ratio,
                     c.geomean_cases, c.geomean_cases == 1 ? "" : "s");
  return s;
}

}  // namespace assay::compare
