// The tune report: its JSON (schema "assay.tune") and Markdown renderings of a TuneRunOutcome,
// and the words the report and the CLI use for a baseline's fault.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/interrupt.hpp"
#include "runner/tune_run.hpp"

namespace assay::runner {

std::string baseline_fault_words(tune::BaselineFault f) {
  switch (f) {
    case tune::BaselineFault::skipped: return "cannot run here";
    case tune::BaselineFault::check_failed: return "failed its check";
    case tune::BaselineFault::not_timed: return "could not be timed";
    case tune::BaselineFault::none: break;
  }
  return "";
}

namespace {

// "running" (the search has not ended), "done", "interrupted by SIGINT" or "failed: ...".
std::string report_state(const TuneRunOutcome& t) {
  if (!t.failure.empty()) return "failed: " + t.failure;
  if (t.interrupted_by) return "interrupted by " + signal_name(t.interrupted_by);
  return t.result.variants.empty() ? "running" : "done";
}

}  // namespace

std::string tune_report_json(const TuneRunOutcome& t) {
  nlohmann::json j = {{"schema", "assay.tune"}, {"schema_version", 1},  {"suite", t.suite},
                      {"bench", t.bench},       {"baseline", t.baseline}, {"shapes", t.shapes},
                      {"budget_spent", t.result.budget_spent}, {"elite", t.result.elite}};
  // "running" is the report reserved before the first check: a tune that died left it so.
  j["state"] = report_state(t);
  j["baseline_failure"] = t.result.baseline_fault == tune::BaselineFault::none ? nlohmann::json(nullptr)
                                                                               : nlohmann::json(t.result.baseline_failure);
  j["variants"] = nlohmann::json::array();
  for (const auto& v : t.result.variants) {
    nlohmann::json e = {{"name", v.name}, {"check_failure", v.check_failure}, {"speedup", v.speedup},
                        {"geomean", v.geomean}, {"budget", v.budget}, {"dropped", v.dropped}, {"elite", v.elite}};
    for (const auto& tv : t.variants)
      if (tv.name == v.name) {
        e["backend"] = tv.backend;
        e["env"] = tv.env;
      }
    j["variants"].push_back(e);
  }
  if (t.result.promotion) {
    const auto& p = *t.result.promotion;
    std::vector<std::string> verdicts;
    for (auto v : p.per_shape) verdicts.push_back(stats::verdict_name(v));
    j["promotion"] = {{"variant", p.variant}, {"promoted", p.promoted}, {"per_shape", verdicts}, {"why", p.why}};
  } else {
    j["promotion"] = nullptr;
  }
  j["tuning_table"] = t.tuning_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.tuning_path);
  if (!t.tuning_note.empty()) j["tuning_note"] = t.tuning_note;
  return j.dump(1) + "\n";
}

// Whether `v` passed every check and was measured at the search's largest budget on every
// shape: a variant successive halving eliminated early has only short sessions, not comparable.
static bool measured_to_the_end(const TuneRunOutcome& t, const tune::VariantOutcome& v) {
  double top = 0;
  for (const auto& x : t.result.variants) top = std::max(top, x.budget);
  return v.check_failure.empty() && v.budget > 0 && v.budget >= top && v.speedup.size() == t.shapes.size();
}

namespace {

// Where a variant is the backend's own heuristic (it runs the family's backend itself, with no
// settings): whether it is in the elite, and per shape its speedup beside the best variant's.
std::string heuristic_markdown(const TuneRunOutcome& t) {
  const tune::VariantOutcome* h = nullptr;
  for (const auto& tv : t.variants)
    if (!t.family.empty() && tv.backend == t.family && tv.env.empty())
      for (const auto& v : t.result.variants)
        if (v.name == tv.name) h = &v;
  if (!h || h->speedup.size() != t.shapes.size()) return "";
  const bool in_elite = std::count(t.result.elite.begin(), t.result.elite.end(), h->name) > 0;
  std::string md = fmt::format("\nThe heuristic (`{}`) is {}in the elite. Per shape, against `{}`:\n\n"
                               "| shape | heuristic | best variant | its speedup |\n|---|---:|---|---:|\n",
                               h->name, in_elite ? "" : "**not** ", t.baseline);
  for (std::size_t i = 0; i < t.shapes.size(); ++i) {
    const tune::VariantOutcome* best = nullptr;
    for (const auto& v : t.result.variants)
      if (measured_to_the_end(t, v) && (!best || v.speedup[i] > best->speedup[i]))
        best = &v;
    md += fmt::format("| `{}` | {:.3f} | `{}` | {:.3f} |\n", t.shapes[i], h->speedup[i], best ? best->name : "–",
                      best ? best->speedup[i] : 0.0);
  }
  return md;
}

}  // namespace

std::string tune_report_markdown(const TuneRunOutcome& t) {
  std::string md = fmt::format("## assay tune: {} / {}, against {}\n\n", t.suite, t.bench, t.baseline);
  if (t.interrupted_by)
    md += "**Interrupted** (" + signal_name(t.interrupted_by) + "): the search did not end; below is what it finished.\n\n";
  if (t.result.baseline_fault != tune::BaselineFault::none)
    md += "**The baseline `" + t.baseline + "` " + baseline_fault_words(t.result.baseline_fault) + "** (" +
          t.result.baseline_failure + "): no variant was compared.\n\n";
  md += fmt::format("{} shapes; budget spent {:g} full sessions.\n\n", t.shapes.size(), t.result.budget_spent);
  md += "| variant | geomean speedup | per shape | elite | out because |\n|---|---:|---|---|---|\n";
  for (const auto& v : t.result.variants) {
    std::string per;
    for (double s : v.speedup) per += fmt::format("{}{:.3f}", per.empty() ? "" : " ", s);
    md += fmt::format("| `{}` | {} | {} | {} | {} |\n", v.name, v.budget > 0 ? fmt::format("{:.4f}", v.geomean) : "–",
                      per.empty() ? "–" : per, v.elite ? "yes" : "", v.dropped);
  }
  md += "\nElite: " + (t.result.elite.empty() ? std::string("none") : fmt::format("{}", fmt::join(t.result.elite, ", "))) + ".\n";
  if (t.result.promotion) md += "Promotion of `" + t.result.promotion->variant + "`: " + t.result.promotion->why + ".\n";
  md += heuristic_markdown(t);
  if (!t.tuning_path.empty()) md += "\nTuning table: `" + t.tuning_path + "` (`assay run --tuning FILE`).\n";
  else if (!t.tuning_note.empty()) md += "\nNo tuning table: " + t.tuning_note + ".\n";
  return md;
}

}  // namespace assay::runner
