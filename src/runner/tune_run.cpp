#include "runner/tune_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "backends/backend.hpp"
#include "core/atomic_file.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "runner/plan.hpp"
#include "runner/resolve.hpp"
#include "runner/run_metadata.hpp"
#include "runner/tuning_table.hpp"
#include "runner/worker.hpp"
#include "suite/suite.hpp"

namespace assay::runner {

namespace {

// The machine: every check and every session a worker of this binary, with the variant's settings.
class RunnerEvaluator : public tune::Evaluator {
 public:
  RunnerEvaluator(const TuneRunOptions& o, const std::vector<TuneVariant>& variants, std::vector<PlannedCase> shapes,
                  std::function<void(const std::string&)> progress)
      : o_(o), shapes_(std::move(shapes)), progress_(std::move(progress)) {
    for (const auto& v : variants) variants_[v.name] = v;
  }

  std::string check(const std::string& variant, std::size_t shape) override {
    RunOptions run = o_.run;
    run.check_only = true;
    const PlannedCase pc = case_of(variant, shape);
    stop_if_interrupted();
    const CaseRecord rec = run_case_in_worker(resolve_case(pc, run, CaseRound{0, 1}, run.device), case_timeout_s(pc),
                                              false, program(variant));
    stop_if_interrupted();  // the signal killed the worker: no verdict on the variant
    progress_(fmt::format("check {} {}: {}", variant, pc.id, case_status_name(rec.status)));
    if (rec.status == CaseStatus::ok) return "";
    return case_status_name(rec.status) + (rec.reason.empty() ? "" : ": " + rec.reason);
  }

  std::vector<double> measure(const std::string& variant, std::size_t shape, double budget) override {
    const PlannedCase pc = case_of(variant, shape);
    verify::ResolvedCase rc = resolve_case(pc, o_.run, CaseRound{0, 1}, o_.run.device);
    // A share of the suite's budget: short sessions while many variants are in the race.
    rc.criterion.min_time_s *= budget;
    rc.criterion.min_samples = std::max<std::uint64_t>(5, static_cast<std::uint64_t>(std::ceil(rc.criterion.min_samples * budget)));
    stop_if_interrupted();
    const CaseRecord rec = run_case_in_worker(rc, case_timeout_s(pc), false, program(variant));
    stop_if_interrupted();
    if (rec.status != CaseStatus::ok || !rec.measurement || rec.measurement->samples_ns.empty()) {
      progress_(fmt::format("measure {} {}: could not be timed", variant, pc.id));
      throw tune::NotTimed(case_status_name(rec.status) + (rec.reason.empty() ? "" : ": " + rec.reason));
    }
    progress_(fmt::format("measure {} {} (budget {:g}): median {:.3f} us", variant, pc.id, budget,
                          rec.summary ? rec.summary->median / 1e3 : 0.0));
    return rec.measurement->samples_ns;
  }

 private:
  // Before and after each worker: a worker started after Ctrl-C is killed at once, and one the
  // signal killed says nothing about its variant.
  static void stop_if_interrupted() {
    if (interrupt_signal()) throw tune::Interrupted{};
  }
  PlannedCase case_of(const std::string& variant, std::size_t shape) const {
    PlannedCase pc = shapes_.at(shape);
    const auto it = variants_.find(variant);
    if (it == variants_.end()) return pc;  // the baseline
    const std::string old = pc.backend;
    pc.backend = it->second.backend;
    pc.id = pc.id.replace(pc.id.find("/" + old + "/"), old.size() + 2, "/" + pc.backend + "/");
    return pc;
  }
  WorkerProgram program(const std::string& variant) const {
    const auto it = variants_.find(variant);
    return it == variants_.end() ? WorkerProgram{} : WorkerProgram{"", it->second.env, {}};
  }

  const TuneRunOptions& o_;
  std::vector<PlannedCase> shapes_;
  std::map<std::string, TuneVariant> variants_;
  std::function<void(const std::string&)> progress_;
};

}  // namespace

TuneVariant parse_tune_variant(const std::string& text, const std::string& origin) {
  static const std::regex head(R"(([A-Za-z0-9_.@:+-]+)=([A-Za-z0-9_.@:+-]+))");
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t comma; (comma = text.find(',', at)) != std::string::npos; at = comma + 1)
    parts.push_back(text.substr(at, comma - at));
  parts.push_back(text.substr(at));
  std::smatch m;
  if (!std::regex_match(parts[0], m, head))
    throw InputError(origin + " '" + text + "': use NAME=BACKEND[,VAR=value...], e.g. wide=assay@wgmma_128x256");
  TuneVariant v{m[1], m[2], {}};
  v.origin = origin;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (!is_env_setting(parts[i])) throw InputError(origin + " '" + text + "': '" + parts[i] + "' is not VAR=value");
    v.env.push_back(parts[i]);
  }
  return v;
}

namespace {

const suite::Bench& find_bench(const suite::Suite& s, const TuneRunOptions& o) {
  for (const auto& b : s.benches)
    if (o.bench.empty() ? s.benches.size() == 1 : b.name == o.bench) return b;
  throw InputError(o.run.suite_path + ": " +
                   (o.bench.empty() ? "the suite has several benches: name one with --bench" : "no bench '" + o.bench + "'"));
}

// The command line's variants and --variants-of's family (known only now that the baseline is),
// else the bench's own.
std::vector<TuneVariant> given_variants(const TuneRunOptions& o, const suite::Bench& bench, const std::string& baseline) {
  std::vector<TuneVariant> variants = o.variants;
  if (o.variants_of) {
    const std::string& f = *o.variants_of;
    if (f.empty()) throw InputError("--variants-of '': name a backend, e.g. assay");
    std::size_t members = 0;
    for (const Backend* b : all_backends()) {
      const bool pinned = b->name().rfind(f + "@", 0) == 0;
      members += pinned || b->name() == f;
      // The backend itself (its own heuristic's choice per shape) races its pinned
      // configurations, so that the report says whether the heuristic's choice is in the elite.
      // The baseline (the bench's own, or --baseline) is no variant of itself.
      if ((pinned || b->name() == f) && b->name() != baseline) {
        TuneVariant v{b->name(), b->name(), {}, true};
        v.origin = "--variants-of " + f + ":";
        variants.push_back(v);
      }
    }
    if (members == 0) throw InputError("--variants-of '" + f + "': no backend " + f + " or " + f + "@... (assay list)");
  }
  if (variants.empty() && !o.variants_of)
    for (const auto& text : bench.tune_variants)
      variants.push_back(
          parse_tune_variant(text, bench.tune_variants_pos.str() + ": bench '" + bench.name + "': tune.variants"));
  if (variants.empty())
    throw InputError("tune: give at least one --variant (or --variants-of BACKEND), or list the bench's variants in "
                     "[bench.tune] variants");
  return variants;
}

// --variants-of, else the one family of every variant's backend, else "".
std::string family_of(const TuneRunOptions& o, const std::vector<TuneVariant>& variants) {
  if (o.variants_of) return *o.variants_of;
  std::string fam = backend_family(variants.front().backend);
  for (const auto& v : variants)
    if (backend_family(v.backend) != fam) return "";
  return fam;
}

// Reserves the report's stem: `<out>/<name>`, or `<name>-2` ... where taken. `first` (a valid
// report of the search not yet run) is written whole to a temporary file, then linked to the
// first free `<stem>.json`: link() fails on a taken name, so tunes started together (in one
// second) keep their own files, and a tune killed at any moment leaves no half-written report. A
// stem whose Markdown or tuning table exists already (another run's) is passed over, so no stale
// table sits beside this report. InputError (exit 3), before the first check, for a bad --out.
std::string reserve_report(const std::string& out_dir, const std::string& name, const std::string& first) {
  namespace fs = std::filesystem;
  if (out_dir.empty()) throw InputError("--out '': name a folder for the tune report");
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (!fs::is_directory(out_dir))
    throw InputError("--out '" + out_dir + "': cannot create this folder" + (ec ? ": " + ec.message() : ""));
  const std::string base = (fs::path(out_dir) / name).string();
  const std::string tmp = base + ".json.tmp." + std::to_string(::getpid());
  try {
    write_file_atomically(tmp, first);
  } catch (const Error& e) {
    throw InputError("--out '" + out_dir + "': " + e.what());
  }
  for (int i = 1; i <= 10000; ++i) {
    const std::string stem = i == 1 ? base : base + "-" + std::to_string(i);
    if (fs::exists(stem + ".md", ec) || fs::exists(stem + ".tuning.json", ec)) continue;
    if (::link(tmp.c_str(), (stem + ".json").c_str()) == 0) {
      ::unlink(tmp.c_str());
      return stem;
    }
    if (errno != EEXIST) {
      const int err = errno;
      ::unlink(tmp.c_str());
      throw InputError("--out '" + out_dir + "': cannot create " + stem + ".json: " + std::strerror(err));
    }
  }
  ::unlink(tmp.c_str());
  throw InputError("--out '" + out_dir + "': no free name for " + base + ".json");
}

}  // namespace

TuneRunOutcome run_tune(const TuneRunOptions& o, const std::function<void(const std::string&)>& progress) {
  // Until the report is reserved nothing is written and no flag is read (a --filter regex can
  // backtrack for minutes): a signal ends the tune at once, 128 + the signal.
  std::optional<ExitAtOnceOnInterrupt> planning(std::in_place);
  const suite::Suite s = suite::load_suite(o.run.suite_path);
  use_suite_python_path(s);
  const suite::Bench& bench = find_bench(s, o);
  const std::string baseline = o.baseline.empty() ? bench.baseline : o.baseline;
  if (baseline.empty()) throw InputError("tune: bench '" + bench.name + "' names no baseline: give --baseline");
  const std::vector<TuneVariant> variants = given_variants(o, bench, baseline);
  TuneRunOutcome out;
  out.suite = s.name;
  out.bench = bench.name;
  out.baseline = baseline;
  out.family = family_of(o, variants);
  std::vector<PlannedCase> shapes;
  for (const auto& pc : plan_cases(s, o.run.filter))
    if (pc.bench == &bench && pc.backend == baseline) shapes.push_back(pc);
  if (shapes.empty())
    throw InputError(o.run.suite_path + ": bench '" + bench.name + "' has no case of baseline '" + baseline + "'" +
                     (o.run.filter ? " matching --filter '" + *o.run.filter + "'" : std::string()));
  std::vector<std::string> names;
  for (const auto& v : variants) {
    const Backend* b = find_backend(v.backend);
    if (!b) throw InputError(v.origin + " " + v.name + ": unknown backend '" + v.backend + "'");
    bool implements = true;
    for (const auto& pc : shapes)
      if (!b->supports(bench.workload, *parse_dtype(pc.point.dtype))) {
        if (v.from_family) {
          implements = false;
          break;
        }
        throw InputError(v.origin + " " + v.name + ": '" + v.backend + "' does not implement " + bench.workload + " in " +
                         pc.point.dtype);
      }
    if (!implements) continue;
    if (v.name == baseline || std::count(names.begin(), names.end(), v.name))
      throw InputError(v.origin + " " + v.name + ": the name is taken (the baseline or another variant)");
    names.push_back(v.name);
    out.variants.push_back(v);
  }
  if (names.empty())
    throw InputError("tune: none of the variants implements " + bench.workload + " in the dtypes of bench '" +
                     bench.name + "'");
  out.workload = bench.workload;
  for (const auto& pc : shapes) {
    out.shapes.push_back(pc.id);
    out.shape_points.emplace_back(pc.point.dtype, pc.point.params);
  }
  const std::string stem =
      reserve_report(o.run.out_dir, s.name + "-tune-" + bench.name + "-" + utc_now_compact(), tune_report_json(out));
  planning.reset();
  out.json_path = stem + ".json";
  out.markdown_path = stem + ".md";

  RunnerEvaluator ev(o, out.variants, shapes, progress);
  out.result = tune::search_variants(names, baseline, shapes.size(), ev, o.search);
  out.interrupted_by = out.result.interrupted ? interrupt_signal() : 0;
  if (out.interrupted_by) out.tuning_note = "the search was interrupted before its end";
  else if (out.result.baseline_fault != tune::BaselineFault::none) out.tuning_note = "the baseline failed";
  else if (const auto table = make_tuning_table(out, &out.tuning_note)) {
    out.tuning_path = stem + ".tuning.json";
    write_file_atomically(out.tuning_path, tuning_table_json(*table));
    out.tuning_note.clear();
  }
  write_file_atomically(out.markdown_path, tune_report_markdown(out));
  write_file_atomically(out.json_path, tune_report_json(out));
  return out;
}

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

std::string signal_name(int sig) { return std::string("SIG") + ::sigabbrev_np(sig); }

// "running" (the search has not ended), "done", or "interrupted by SIGINT".
std::string report_state(const TuneRunOutcome& t) {
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

bool measured_to_the_end(const TuneRunOutcome& t, const tune::VariantOutcome& v) {
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
