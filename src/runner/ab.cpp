#include "runner/ab.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>

#include "backends/backend.hpp"
#include "backends/subprocess.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/interrupt.hpp"
#include "core/results.hpp"
#include "core/text_syntax.hpp"
#include "runner/devices.hpp"
#include "runner/plan.hpp"
#include "runner/resolve.hpp"
#include "runner/results_file.hpp"
#include "runner/rounds.hpp"
#include "runner/run_metadata.hpp"
#include "runner/run_record.hpp"
#include "runner/runner.hpp"
#include "stats/sample_comparison.hpp"
#include "stats/session_noise.hpp"
#include "suite/suite.hpp"
#include "verify/resolved_case.hpp"

namespace assay::runner {

namespace {

// VERSION (DESCRIBE): two words without blanks, the second in parentheses, as `assay --version`
// prints them (after "assay "). A loop: a regex recursed per character of a long line, and crashed.
bool is_version_line(std::string_view line) {
  const std::size_t space = line.find(' ');
  if (space == 0 || space == std::string_view::npos) return false;
  const std::string_view word = line.substr(0, space), paren = line.substr(space + 1);
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; };
  const auto no_blank = [&](std::string_view w) { return std::none_of(w.begin(), w.end(), blank); };
  return no_blank(word) && paren.size() >= 3 && paren.front() == '(' && paren.back() == ')' &&
         no_blank(paren.substr(1, paren.size() - 2));
}

struct Side {
  const char* name;  // "base", "candidate"
  const char* flag;  // "--base", "--candidate"
  const WorkerProgram* program;
  RunRecord run;
  std::unique_ptr<ResultsFile> file;
};

// A worker that rejects its request was built with another worker protocol: no case of this
// side can run, so the whole comparison is bad input rather than a column of crashes.
void refuse_foreign_worker(const Side& side, const CaseRecord& rec) {
  if (rec.status == CaseStatus::crashed && rec.stderr_tail.find("worker request") != std::string::npos)
    throw InputError(std::string(side.flag) + " " + side.program->path +
                     ": its worker cannot read this assay's case requests (another worker protocol; build both "
                     "sides from versions that share it): " +
                     rec.stderr_tail.substr(0, rec.stderr_tail.find('\n')));
}

// A side built before `l2_flush` existed reads a case request without it and flushes with a
// memset: under `--l2-flush clean` its rounds would be paired with the other side's clean ones, and
// its adapters timed where the other side skips them. Refused, as a foreign worker is.
void refuse_unclean_worker(const Side& side, const verify::ResolvedCase& rc, const Backend& backend,
                           const CaseRecord& rec) {
  if (rc.method.mode != measure::Mode::cold || rc.method.l2_flush != measure::L2Flush::clean ||
      rec.status != CaseStatus::ok || !rec.measurement)
    return;
  const MeasurementRecord& m = *rec.measurement;
  if (backend.target() == Target::external || (m.mode == "cold" && m.l2_flush != kL2FlushClean))
    throw InputError(std::string(side.flag) + " " + side.program->path +
                     ": its worker ignored l2_flush = \"clean\" (a build older than the option): build both sides "
                     "with it, or leave the flush at memset");
}

// Each round keeps the case's whole time budget (min_time_s, timeout_s); only the sample counts are
// shared out. A round is a fresh process: its samples must span the GPU's power management swings
// (tens of milliseconds on an H100 under its cap) for its median to stand for the case. With the
// time shared out as `--rounds` does in one process, 6 rounds of a 4096^3 GEMM took 9 samples in
// about 2 ms each, and round medians of identical code differed by up to 17% (bench/README.md).
void keep_whole_time_budget(verify::ResolvedCase& rc, const measure::Criterion& whole) {
  rc.criterion.min_time_s = whole.min_time_s;
  rc.criterion.timeout_s = whole.timeout_s;
}

// The paired verdict of the rounds so far on time (or on cycles), at this look; nullopt where a
// round has no such samples or the samples are refused (compare then says why).
std::optional<stats::Verdict> paired_verdict(const std::vector<CaseRecord>& base, const std::vector<CaseRecord>& cand,
                                             bool cycles, const stats::Thresholds& at_look) {
  stats::Sessions sides[2];
  for (int s = 0; s < 2; ++s)
    for (const auto& r : s == 0 ? base : cand) {
      if (!r.measurement) return std::nullopt;
      auto v = cycles ? cycle_samples(*r.measurement) : r.measurement->samples_ns;
      if (v.empty()) return std::nullopt;
      sides[s].push_back(std::move(v));
    }
  if (sides[0].size() != sides[1].size() || sides[0].size() < 2) return std::nullopt;
  try {
    return stats::compare_paired_rounds(sides[0], sides[1], stats::Better::lower, at_look).verdict;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

// Whether the rounds so far leave the case's verdict AMBIGUOUS at this look: on time, or with
// --also-cycles on time and cycles together, each at half the look's alpha, as compare judges it.
bool still_ambiguous(const std::vector<CaseRecord>& base, const std::vector<CaseRecord>& cand,
                     const stats::Thresholds& at_look, bool also_cycles) {
  if (!also_cycles) return paired_verdict(base, cand, false, at_look) == stats::Verdict::ambiguous;
  const stats::Thresholds half = stats::at_each_look(at_look, 2);
  const auto time = paired_verdict(base, cand, false, half);
  if (!time) return false;
  const auto cycles = paired_verdict(base, cand, true, half);
  if (!cycles) return *time == stats::Verdict::ambiguous;  // no clock probe: judged on time alone
  return stats::combine_time_and_cycles(*time, *cycles) == stats::Verdict::ambiguous;
}

}  // namespace

std::string program_version(const std::string& flag, const WorkerProgram& program) {
  if (::access(program.path.c_str(), X_OK) != 0)
    throw InputError(flag + " '" + program.path + "': not an executable file");
  std::vector<std::string> argv{"/usr/bin/env", "--"};  // settings are never env's options
  argv.insert(argv.end(), program.env.begin(), program.env.end());
  argv.push_back(program.path);
  argv.push_back("--version");
  SubprocessLimits limits;
  limits.timeout_s = 30;
  const SubprocessResult r = run_subprocess(argv, "", limits);
  std::string out = r.out.substr(0, r.out.find('\n'));
  if (!r.started || r.exit_code != 0 || !(is_version_line(out) || (out.starts_with("assay ") && is_version_line(out.substr(6)))))
    throw InputError(flag + " '" + program.path + "': does not answer --version as assay does (" +
                     (r.started ? "exit " + std::to_string(r.exit_code) + ": '" + out + "'" : r.error) + ")");
  return out;
}

AbOutcome run_ab(const AbOptions& o, const std::function<void(const std::string&)>& progress) {
  if (o.rounds < 2 || o.rounds % 2 != 0)
    throw InputError("--rounds " + std::to_string(o.rounds) + ": an even number of at least 2 (A B, B A, ...)");
  const std::uint64_t max_rounds = o.max_rounds ? o.max_rounds : o.rounds;
  if (max_rounds < o.rounds || max_rounds % 2 != 0 || max_rounds > 64)
    throw InputError("--max-rounds " + std::to_string(max_rounds) + ": an even number from --rounds (" +
                     std::to_string(o.rounds) + ") to 64");
  const int looks = stats::sequential_looks(o.rounds, max_rounds);
  const stats::Thresholds at_look = stats::at_each_look(o.thresholds, looks);
  if (!o.run.devices.empty()) throw InputError("--devices: assay ab measures both sides on one device (--device)");
  Side sides[2] = {{"base", "--base", &o.base, {}, nullptr}, {"candidate", "--candidate", &o.candidate, {}, nullptr}};
  std::string versions[2];
  for (int s = 0; s < 2; ++s) versions[s] = program_version(sides[s].flag, *sides[s].program);

  const suite::Suite suite = suite::load_suite(o.run.suite_path);
  use_suite_python_path(suite);
  const auto planned = plan_cases(suite, o.run.filter);
  if (planned.empty())
    throw InputError(o.run.suite_path + ": no case to run" +
                     (o.run.filter ? " matches --filter '" + *o.run.filter + "'" : std::string()));
  std::vector<std::string> backends;
  for (const auto& pc : planned) {
    resolve_case(pc, o.run, CaseRound{0, o.rounds}, o.run.device);
    backends.push_back(pc.backend);
  }
  Executors ex = make_executors(o.run.device, false, needs_cuda(backends));
  const std::vector<std::string> devices = resolve_devices(o.run, ex);

  const std::string stamp = utc_now_compact();
  AbOutcome out;
  out.folder = (std::filesystem::path(o.run.out_dir) /
                (suite.name + "-ab-" + (o.run.tag.empty() ? "untagged" : o.run.tag) + "-" + stamp))
                   .string();
  for (int s = 0; s < 2; ++s) {
    Side& side = sides[s];
    side.run = describe_run(o.run, suite, ex, devices);
    const std::string& v = versions[s];
    side.run.assay_version = v.substr(v.find(' ') == std::string::npos ? 0 : v.find(' ') + 1);
    side.run.assay_version = side.run.assay_version.substr(0, side.run.assay_version.find(" ("));
    side.run.assay_build_commit = v.substr(v.rfind('(') + 1, v.size() - v.rfind('(') - 2);
    side.run.ab_pair = suite.name + "-ab-" + stamp + "-" + std::to_string(::getpid());
    side.run.ab_side = side.name;
    for (const auto& e : side.program->env) side.run.environment["ab." + std::string(side.name) + "." + e.substr(0, e.find('='))] = e.substr(e.find('=') + 1);
    side.run.environment["ab." + std::string(side.name) + ".program"] = side.program->path;
    // The looks a sequential run allowed each case: compare tests its verdicts at alpha / looks.
    if (looks > 1) {
      side.run.environment["ab.max_rounds"] = std::to_string(max_rounds);
      side.run.environment["ab.looks"] = std::to_string(looks);
      // What the looks judged (--also-cycles: time and cycles); a later compare picks its own.
      if (o.also_cycles) side.run.environment["ab.also_cycles"] = "1";
    }
    side.file = std::make_unique<ResultsFile>(out.folder, side.name, planned.size(), side.run);
  }

  for (std::size_t i = 0; i < planned.size(); ++i) {
    const PlannedCase& pc = planned[i];
    const Backend& backend = *find_backend(pc.backend);
    std::vector<CaseRecord> parts[2];
    std::uint64_t target = o.rounds;  // grows by a pair while the case is undecided (--max-rounds)
    const auto not_run = [&](int s, CaseStatus status, const std::string& why) {
      CaseRecord rec = verify::planned_record(resolve_case(pc, o.run, CaseRound{0, o.rounds}, o.run.device));
      rec.status = status;
      rec.reason = why;
      parts[s] = {rec};
    };
    if (backend.target() == Target::cuda && !ex.cuda_ok) {
      for (int s = 0; s < 2; ++s) not_run(s, CaseStatus::skipped, ex.cuda_skip);
    } else if (const auto why = backend.unavailable_reason();
               !why.empty() && o.base.env.empty() && o.candidate.env.empty()) {
      // Only where the sides' workers see this process's environment: a side's own settings
      // (--base-env TVM_BENCH_CMD=...) may make an adapter available there; its worker says.
      for (int s = 0; s < 2; ++s) not_run(s, CaseStatus::skipped, why);
    } else {
      progress("[" + std::to_string(i + 1) + "/" + std::to_string(planned.size()) + "] " + pc.id + " ...");
      const measure::Criterion whole = resolve_case(pc, o.run, CaseRound{0, 1}, o.run.device).criterion;
      for (std::uint64_t r = 0; r < target; ++r) {
        // A B in even rounds, B A in odd ones: over each pair of rounds both sides hold both places.
        for (const int s : r % 2 == 0 ? std::array{0, 1} : std::array{1, 0}) {
          if (interrupt_signal()) break;
          if (r > 0 && parts[s].back().status != CaseStatus::ok) continue;
          std::uint64_t floor = 0;
          if (r > 0 && parts[s].front().measurement) floor = parts[s].front().measurement->samples_ns.size();
          verify::ResolvedCase rc = resolve_case(pc, o.run, CaseRound{r, o.rounds, floor}, o.run.device);
          keep_whole_time_budget(rc, whole);
          if (max_rounds > o.rounds) {
            // Rounds beyond --rounds take the same shares: the max_samples share is of max_rounds,
            // so that a case grown to M rounds still keeps at most max_samples.
            rc.criterion.max_samples =
                std::max(rc.criterion.min_samples, std::max<std::uint64_t>(1, whole.max_samples / max_rounds));
            // The recheck runs in the round that may end the case (the last one as planned now; an
            // extended case rechecks again in its new last round): the extra rounds' outputs had
            // never been compared with the oracle, and the merged record kept no recheck.
            if (r + 1 == target) rc.rounds = r + 1;
          }
          CaseRecord rec = run_case_in_worker(rc, case_timeout_s(pc), false, *sides[s].program);
          refuse_foreign_worker(sides[s], rec);
          refuse_unclean_worker(sides[s], rc, backend, rec);
          // The interruption killed the worker: the case was cut short, it did not crash (as `run`).
          if (const int sig = interrupt_signal(); sig && rec.status != CaseStatus::ok) {
            rec.status = CaseStatus::interrupted;
            rec.reason = std::string("assay was interrupted (") + signal_name(sig) + ") while the case ran";
          }
          parts[s].push_back(std::move(rec));
        }
        // A side that is not ok ends the case for both: its pairs would be incomplete.
        if (interrupt_signal() || parts[0].back().status != CaseStatus::ok || parts[1].back().status != CaseStatus::ok)
          break;
        if (r + 1 == target && target < max_rounds && still_ambiguous(parts[0], parts[1], at_look, o.also_cycles))
          target += 2;
      }
      if (target > o.rounds) progress("  " + pc.id + ": " + std::to_string(parts[0].size()) + " rounds (sequential)");
      for (int s = 0; s < 2; ++s)
        if (parts[s].empty()) not_run(s, CaseStatus::interrupted, "not run: assay was interrupted");
    }
    std::string line = "[" + std::to_string(i + 1) + "/" + std::to_string(planned.size()) + "] " + pc.id + ":";
    for (int s = 0; s < 2; ++s) {
      const std::size_t rounds_done = parts[s].size();
      CaseRecord rec = rounds_done == 1 ? std::move(parts[s].front()) : finish_case_rounds(parts[s]);
      // Fewer rounds than asked (or than a sequential case had grown to) because of Ctrl-C: not a
      // full set of pairs. (Fewer because the other side failed: this side's timing stands; the
      // comparison says FAILED or NEW/GONE.)
      if (rec.status == CaseStatus::ok && interrupt_signal() && rounds_done < target) {
        rec.status = CaseStatus::interrupted;
        rec.reason = "assay was interrupted after " + std::to_string(rounds_done) + " of " + std::to_string(target) +
                     " rounds";
      }
      char buf[96] = "";
      if (rec.summary) std::snprintf(buf, sizeof buf, " median %.3f us", rec.summary->median / 1e3);
      line += std::string(s ? ";" : "") + " " + sides[s].name + " " + case_status_name(rec.status) + buf;
      if (!rec.reason.empty()) line += " (" + rec.reason + ")";
      sides[s].file->finish(i, std::move(rec), sides[s].run);
    }
    progress(line);
  }

  out.interrupted_by = interrupt_signal();
  for (int s = 0; s < 2; ++s) {
    ResultsDocument& doc = s == 0 ? out.base : out.candidate;
    doc.run = sides[s].run;
    doc.run.finished_utc = utc_now_iso8601();
    doc.cases = std::move(sides[s].file->cases());
    attach_baseline_ratios(doc.cases);
    (s == 0 ? out.base_path : out.candidate_path) = sides[s].file->json_path();
    write_file_atomically(sides[s].file->json_path(), to_json_text(doc));
  }
  return out;
}

}  // namespace assay::runner
