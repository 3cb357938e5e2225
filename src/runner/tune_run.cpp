#include "runner/tune_run.hpp"


#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include "backends/backend.hpp"
#include "core/atomic_file.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/text_syntax.hpp"
#include "runner/plan.hpp"
#include "runner/resolve.hpp"
#include "runner/results_file.hpp"
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

  // Every case of `names` (the variants and the baseline) on every shape resolved once, before
  // anything is written: a check shape the workload refuses is bad input (exit 3), as in `assay run`.
  void resolve_all(const std::vector<std::string>& names) const {
    for (const auto& name : names)
      for (std::size_t s = 0; s < shapes_.size(); ++s) resolve_case(case_of(name, s), o_.run, CaseRound{0, 1}, o_.run.device);
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
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t comma; (comma = text.find(',', at)) != std::string::npos; at = comma + 1)
    parts.push_back(text.substr(at, comma - at));
  parts.push_back(text.substr(at));
  const std::size_t eq = parts[0].find('=');
  if (eq == std::string::npos || !is_variant_word(parts[0].substr(0, eq)) || !is_variant_word(parts[0].substr(eq + 1)))
    throw InputError(origin + " '" + text + "': use NAME=BACKEND[,VAR=value...], e.g. wide=assay@wgmma_128x256");
  TuneVariant v{parts[0].substr(0, eq), parts[0].substr(eq + 1), {}};
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
  RunnerEvaluator ev(o, out.variants, shapes, progress);
  std::vector<std::string> resolved = names;
  resolved.push_back(baseline);
  ev.resolve_all(resolved);
  // The report's stem reserved as a results file's (never another run's); a stem whose Markdown or
  // tuning table is there already is passed over, so no stale table sits beside this report.
  const std::string stem = reserve_first_free(o.run.out_dir, s.name + "-tune-" + bench.name + "-" + utc_now_compact(),
                                              tune_report_json(out), "the tune report", {".md", ".tuning.json"});
  planning.reset();
  out.json_path = stem + ".json";
  out.markdown_path = stem + ".md";

  try {
    out.result = tune::search_variants(names, baseline, shapes.size(), ev, o.search);
    // A signal after the last worker (the bookkeeping, the writes) counts too, as in `assay run`.
    out.interrupted_by = interrupt_signal();
    if (out.interrupted_by) out.tuning_note = "the search was interrupted before its end";
    else if (out.result.baseline_fault != tune::BaselineFault::none) out.tuning_note = "the baseline failed";
    else if (const auto table = make_tuning_table(out, &out.tuning_note)) {
      out.tuning_path = stem + ".tuning.json";
      write_file_atomically(out.tuning_path, tuning_table_json(*table));
      out.tuning_note.clear();
    }
    write_file_atomically(out.markdown_path, tune_report_markdown(out));
    write_file_atomically(out.json_path, tune_report_json(out));
  } catch (const std::exception& e) {
    // The reserved report says how the tune ended, not "running".
    out.failure = e.what();
    try {
      write_file_atomically(out.json_path, tune_report_json(out));
    } catch (const std::exception&) {
      // The first error is the one to report; the reserved report keeps its last whole text.
    }
    throw;
  }
  return out;
}

}  // namespace assay::runner
