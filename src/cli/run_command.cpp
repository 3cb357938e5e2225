#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/device_flag.hpp"
#include "core/atomic_file.hpp"
#include "core/interrupt.hpp"
#include "core/results.hpp"
#include "core/text_syntax.hpp"
#include "report/markdown.hpp"
#include "report/session_summary.hpp"
#include "runner/repeat.hpp"
#include "runner/run_metadata.hpp"
#include "runner/runner.hpp"
#include "store/history_db.hpp"
#include "suite/suite.hpp"

namespace assay::cli {

namespace {
struct RunFlags {
  runner::RunOptions opt;
  std::string mode, filter, history, shard, devices, tuning, l2_flush;
  bool no_isolate = false, no_doctor = false, sanitize = false;
  int repeat = 1;
  std::uint64_t rounds = 0;  // 0: the suite's
  double gap_us = -1;        // < 0: the suite's
  bool json = false, quiet = false, no_history = false;
  bool history_given = false, devices_given = false, shard_given = false, filter_given = false;
};

// A run's tag is part of its results file name: the suite's name rule (docs/suite-format.md).
bool safe_tag(const std::string& tag) {
  if (tag.size() > 100 || (!tag.empty() && tag[0] == '.')) return false;
  return std::regex_match(tag, std::regex("[A-Za-z0-9._-]*"));
}

// "I/N" with 1 <= I <= N, each at most 6 digits (a shard, a session of a repeat); none otherwise.
std::optional<std::pair<int, int>> index_of_count(std::string_view text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash > 6 || text.size() - slash - 1 > 6 || !all_digits(text.substr(0, slash)) ||
      !all_digits(text.substr(slash + 1)))
    return std::nullopt;
  const int i = std::stoi(std::string(text.substr(0, slash))), n = std::stoi(std::string(text.substr(slash + 1)));
  if (i < 1 || i > n) return std::nullopt;
  return std::pair{i, n};
}

// The group this process belongs to when a parent `--repeat` started it (its session "i/n"); a
// run on its own else, also for a value no parent writes.
store::SessionInfo session_from_environment() {
  const char* group = std::getenv(runner::kRunGroupEnv);
  const char* session = std::getenv(runner::kSessionEnv);
  if (!group || !session) return {};
  const auto in = index_of_count(session);
  if (!in) return {};
  return {group, in->first, in->second};
}

// --history names a database file: checked before any case runs, so that a run is never lost
// to a history it cannot write (a folder, another kind of file, a folder that cannot be made).
void check_history_flag(const std::string& flag_value, bool given) {
  namespace fs = std::filesystem;
  if (given && flag_value.empty()) throw InputError("--history '': name a history database file");
  const std::string path = store::history_path(flag_value);
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (fs::is_directory(st)) throw InputError("--history '" + path + "': is a folder, not a history database file");
  if (fs::exists(st)) {
    if (!fs::is_regular_file(st)) throw InputError("--history '" + path + "': not a regular file");
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    if (in.gcount() > 0 && std::string(head, static_cast<std::size_t>(in.gcount())) != std::string("SQLite format 3\0", 16))
      throw InputError("--history '" + path + "': not an assay history database (not an SQLite file)");
    return;
  }
  const fs::path parent = fs::path(path).parent_path();
  if (!parent.empty() && !fs::is_directory(parent)) {
    fs::create_directories(parent, ec);
    if (!fs::is_directory(parent))
      throw InputError("--history '" + path + "': cannot create its folder" + (ec ? ": " + ec.message() : ""));
  }
}

// Records a finished run; a failure here does not lose the results file, which is already written.
int record_in_history(const RunFlags& f, const runner::RunOutcome& out) {
  if (out.results_path.empty()) return static_cast<int>(out.code);
  try {
    store::HistoryDb db = store::HistoryDb::open_for_writing(store::history_path(f.history));
    db.record_run(out.doc, out.results_path, session_from_environment());
  } catch (const Error& e) {
    std::cerr << "assay: error: history not updated (results are in " << out.results_path << "): " << e.what() << "\n";
    return out.code == ExitCode::ok ? static_cast<int>(e.code()) : static_cast<int>(out.code);
  }
  return static_cast<int>(out.code);
}

int run_once(RunFlags& f) {
  const bool records = !f.opt.check_only && !f.no_history;
  if (records) {  // before any case runs
    check_history_flag(f.history, f.history_given);
    store::HistoryDb::verify_writable(store::history_path(f.history));
  }
  const auto progress = [&f](const std::string& line) {
    if (!f.quiet) std::cerr << line << "\n";
  };
  const runner::RunOutcome out = runner::run_suite(f.opt, progress);
  if (out.code == ExitCode::skipped) {
    std::cerr << "skipped: " << out.skipped_reason << "\n";
    return static_cast<int>(out.code);
  }
  if (f.json) std::cout << to_json_text(out.doc);
  else if (!f.quiet) std::cout << report::terminal_table(out.doc);
  std::size_t counts[8] = {};
  for (const auto& c : out.doc.cases) ++counts[static_cast<int>(c.status)];
  std::cerr << counts[0] << " ok, " << counts[1] << " check-failed, " << counts[3] << " error, " << counts[2]
            << " skipped";
  if (counts[4] + counts[5]) std::cerr << ", " << counts[4] << " crashed, " << counts[5] << " timeout";
  if (counts[6]) std::cerr << ", " << counts[6] << " interrupted";
  if (counts[7]) std::cerr << ", " << counts[7] << " implausible";
  std::cerr << "; results: " << out.results_path << "\n";
  const int code = records ? record_in_history(f, out) : static_cast<int>(out.code);
  // Interrupted: 128 + the signal, as a shell reports a process that the signal ended.
  return out.interrupted_by ? 128 + out.interrupted_by : code;
}

// Creates the group folder `name` under out_dir, or `name-2`, `name-3`, ... when it exists: two
// --repeat runs started in the same second (same suite and tag) must not share one folder, whose
// summary would then mix their sessions. Returns the folder's name; InputError naming --out.
std::string new_group_folder(const std::string& out_dir, const std::string& name) {
  namespace fs = std::filesystem;
  try {
    fs::create_directories(out_dir);
    for (int i = 1; i <= 10000; ++i) {
      const std::string id = i == 1 ? name : name + "-" + std::to_string(i);
      if (fs::create_directory(fs::path(out_dir) / id)) return id;
    }
  } catch (const fs::filesystem_error& e) {
    throw InputError("--out '" + out_dir + "': cannot create a session group folder: " + e.code().message());
  }
  throw InputError("--out '" + out_dir + "': every group folder name " + name + "-N is taken");
}

// --repeat N: N sessions, each a fresh process writing into one group folder, then the
// combined summary (median of session medians, spread between sessions) beside them.
int run_repeated(RunFlags& f) {
  const suite::Suite s = suite::load_suite(f.opt.suite_path);  // bad input stops here, before any session
  if (!f.no_history) {
    check_history_flag(f.history, f.history_given);
    store::HistoryDb::verify_writable(store::history_path(f.history));
  }
  const std::string group_id = new_group_folder(f.opt.out_dir, s.name + "-" + (f.opt.tag.empty() ? "untagged" : f.opt.tag) +
                                                                   "-" + runner::utc_now_compact() + "-x" +
                                                                   std::to_string(f.repeat));
  const std::string group_dir = f.opt.out_dir + "/" + group_id;
  const auto sessions = runner::run_sessions(runner::session_arguments(f.opt.command_line, group_dir), f.repeat,
                                             group_dir, group_id, [](const std::string& line) { std::cerr << line << "\n"; });
  std::vector<ResultsDocument> docs;
  std::vector<std::string> paths;
  for (const auto& o : sessions)
    if (!o.results_path.empty()) {
      docs.push_back(parse_results_json(read_text_file(o.results_path), o.results_path));
      paths.push_back(o.results_path);
    }
  if (!docs.empty()) {
    const report::SessionsSummary summary = report::summarize_sessions(group_id, docs, paths);
    write_file_atomically(group_dir + "/sessions.json", report::sessions_json(summary));
    write_file_atomically(group_dir + "/sessions.md", report::sessions_markdown(summary));
    if (!f.quiet) std::cout << report::sessions_markdown(summary);
  }
  // A session ended by a signal (128 + signal) kept what it finished: say so, as its cases are
  // "interrupted" in its document and the summary's medians then rest on fewer sessions.
  std::size_t interrupted = 0;
  for (const auto& o : sessions) interrupted += o.exit_code >= 128;
  std::cerr << sessions.size() << " of " << f.repeat << " sessions ran";
  if (interrupted) std::cerr << " (" << interrupted << " interrupted before its end)";
  std::cerr << "; sessions: " << group_dir << "\n";
  return runner::combined_exit_code(sessions);
}
}  // namespace

Action add_run_command(CLI::App& app, const std::vector<std::string>& argv, bool check_only) {
  auto flags = std::make_shared<RunFlags>();
  flags->opt.command_line = argv;
  flags->opt.check_only = check_only;
  app.add_option("suite", flags->opt.suite_path, "suite file (TOML), e.g. suites/gemm.toml")->required();
  app.add_option("--tag", flags->opt.tag, "a name for this run, kept in the results (letters, digits, . _ -)");
  app.add_option("--out", flags->opt.out_dir, "folder for the results JSON and Markdown")->capture_default_str();
  app.add_option("--device", flags->opt.device, "CUDA device index, or 'cpu' to run only CPU backends")
      ->capture_default_str();
  if (!check_only) {
    app.add_option("--mode", flags->mode, "override the suite's mode")->check(CLI::IsMember({"cold", "hot", "graph", "host"}));
    app.add_option("--repeat", flags->repeat, "run the suite N times, each session a fresh process")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_option("--rounds", flags->rounds,
                   "measure each case of a point in N rounds, its backends alternating (A B B A ...); overrides the suite")
        ->check(CLI::Range(1, 64));
    app.add_option("--l2-flush", flags->l2_flush,
                   "cold mode's L2 flush for in-process backends: memset (the suite's default; as nvbench) or clean (L2 left "
                   "without dirty lines: docs/measurement-notes.md); overrides the suite's l2_flush")
        ->check(CLI::IsMember({std::string(kL2FlushMemset), std::string(kL2FlushClean)}));
    app.add_option("--gap-us", flags->gap_us,
                   "GPU idle kept between timed samples, microseconds, the same for every in-process backend in cold, hot and graph mode; overrides the suite's gap_us")
        ->check(CLI::Range(0.0, 100000.0))
        ->check(CLI::Validator(
            [](const std::string& v) -> std::string {
              // Range lets NaN through (every comparison with it is false).
              return std::isfinite(std::strtod(v.c_str(), nullptr)) ? "" : "must be a finite number of microseconds";
            },
            "FINITE"));
    app.add_option("--history", flags->history, "history database (default $ASSAY_HISTORY or .assay/history.db)")
        ->each([flags](const std::string&) { flags->history_given = true; });
    app.add_flag("--no-history", flags->no_history, "do not record this run in the history");
  }
  app.add_option("--tuning", flags->tuning,
                 "a tuning table written by `assay tune` (*.tuning.json): the cases of its backend in its shape classes run its variants");
  app.add_option("--filter", flags->filter, "run only cases whose id matches this regex (bench/backend/dtype/params)")
      ->each([flags](const std::string&) { flags->filter_given = true; });
  app.add_option("--seed", flags->opt.seed, "base seed of the random inputs")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& v) -> std::string {
            // An unsigned parse would wrap "-1" to 2^64-1 without a word.
            const std::string max = "18446744073709551615";
            const auto first = v.find_first_not_of('0');
            const std::string digits = first == std::string::npos ? "0" : v.substr(first);
            const bool fits = digits.size() < max.size() || (digits.size() == max.size() && digits <= max);
            return !v.empty() && v.find_first_not_of("0123456789") == std::string::npos && fits
                       ? ""
                       : "must be a whole number from 0 to 18446744073709551615";
          },
          "UINT64"));
  app.add_option("--shard", flags->shard, "run shard I of N (I/N): whole points dealt round-robin; merge with `assay merge`")
      ->each([flags](const std::string&) { flags->shard_given = true; });
  app.add_flag("--no-isolate", flags->no_isolate,
               "run cases in this process (faster start, but a fault ends the run); default: one worker process per case");
  app.add_option("--devices", flags->devices, "run on several GPUs in parallel, one worker per GPU: 0,2 or all")
      ->each([flags](const std::string&) { flags->devices_given = true; });
  if (check_only)
    app.add_flag("--sanitize", flags->sanitize,
                 "also run each GPU case's check under compute-sanitizer (memcheck, racecheck) and report findings");
  app.add_flag("--no-doctor", flags->no_doctor, "do not print the doctor's one-line summary of the GPU first");
  app.add_flag("--json", flags->json, "print the results document on stdout instead of the table");
  app.add_flag("--quiet", flags->quiet, "print only errors and the final line");

  return [flags]() -> int {
    auto& f = *flags;
    if (!f.mode.empty()) f.opt.mode = f.mode;
    if (f.rounds > 0 && !suite::rounds_balanced(f.rounds))
      throw InputError("--rounds " + std::to_string(f.rounds) + ": " + suite::kRoundsRule);
    if (f.rounds > 0) f.opt.rounds = f.rounds;
    if (f.gap_us >= 0) f.opt.gap_us = f.gap_us;
    if (!f.l2_flush.empty()) f.opt.l2_flush = f.l2_flush;
    if (f.filter_given && f.filter.empty()) throw InputError("--filter '': give a regex of case ids");
    if (!f.filter.empty()) f.opt.filter = f.filter;
    if (!f.tuning.empty()) {
      f.opt.tuning = runner::load_tuning_table(f.tuning);
      f.opt.tuning_path = f.tuning;
    }
    if (!safe_tag(f.opt.tag))
      throw InputError("--tag " + (printable_ascii(f.opt.tag) && f.opt.tag.size() <= 100 ? "'" + f.opt.tag + "'" : std::string("(") + std::to_string(f.opt.tag.size()) + " bytes)") +
                       ": use only letters, digits, '.', '_' and '-', not starting with '.', at most 100 characters");
    f.opt.isolate = !f.no_isolate;
    f.opt.doctor = !f.no_doctor;
    f.opt.sanitize = f.sanitize;
    if (f.sanitize && f.no_isolate) throw InputError("--sanitize runs each case's worker under compute-sanitizer: drop --no-isolate");
    // --device is 'cpu' or a GPU index; --devices 'all' or GPU indices (which of them exist is
    // the runner's to say; an index may repeat: two workers on one GPU): checked here, before
    // any case runs.
    check_device_flag(f.opt.device);
    const std::regex index("[0-9]{1,4}");
    if (f.devices_given) {
      if (f.opt.device == "cpu") throw InputError("--devices runs one worker per GPU: drop --device cpu");
      std::stringstream ss(f.devices);
      for (std::string d; std::getline(ss, d, ',');) {
        if (d == "all" ? f.devices.find(',') != std::string::npos : !std::regex_match(d, index))
          throw InputError("--devices '" + (printable_ascii(f.devices) ? f.devices : std::string("?")) +
                           "': use 'all' or GPU indices, e.g. 0,2");
        f.opt.devices.push_back(d);
      }
      if (f.opt.devices.empty() || f.devices.back() == ',')
        throw InputError("--devices '" + (printable_ascii(f.devices) ? f.devices : std::string("?")) +
                         "': use 'all' or GPU indices, e.g. 0,2");
    }
    if (f.shard_given) {
      const auto in = index_of_count(f.shard);
      if (!in) throw InputError("--shard '" + f.shard + "': use I/N with 1 <= I <= N, e.g. 2/8");
      f.opt.shard_index = in->first;
      f.opt.shard_count = in->second;
    }
    install_interrupt_handlers();
    return f.repeat > 1 ? run_repeated(f) : run_once(f);
  };
}

}  // namespace assay::cli
