// The assay command line: subcommands parsed with CLI11, each one thin (parse, call the
// library, print), errors mapped to the documented exit codes.
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "assay/version.hpp"
#include "runner/worker.hpp"

namespace assay::cli {

int run_cli(int argc, char** argv) {
  using assay::ExitCode;
  // A child that exits without reading its stdin must not kill assay (or a worker) with
  // SIGPIPE: a write to its pipe fails with EPIPE instead, and the subprocess runner stops
  // feeding it.
  std::signal(SIGPIPE, SIG_IGN);
  // An isolated case's worker process (src/runner/worker.hpp); not a user command.
  if (argc == 2 && std::string(argv[1]) == "__worker") return assay::runner::worker_main();
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"assay: check, measure and compare GPU kernels against the vendor libraries"};
  app.set_version_flag("--version", std::string(assay::kVersion) + " (" + assay::kBuildCommit + ")");
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, assay::cli::Action>> actions;
  {
    auto* run = app.add_subcommand("run", "check, then measure every case of a suite and write the results");
    actions.emplace_back(run, assay::cli::add_run_command(*run, args, false));
    auto* check = app.add_subcommand("check", "correctness only: run every case once against the fp64 oracle");
    actions.emplace_back(check, assay::cli::add_run_command(*check, args, true));
    auto* merge = app.add_subcommand("merge", "merge the results of the shards of one suite into one document");
    actions.emplace_back(merge, assay::cli::add_merge_command(*merge, args));
    auto* sessions = app.add_subcommand("sessions", "summarise sessions of one suite run as separate commands, as run --repeat does");
    actions.emplace_back(sessions, assay::cli::add_sessions_command(*sessions));
    auto* list = app.add_subcommand("list", "list workloads, backends and devices found here");
    actions.emplace_back(list, assay::cli::add_list_command(*list));
    auto* compare = app.add_subcommand("compare", "compare two runs case by case: verdicts, a CI gate, Markdown/JUnit/CSV/BMF");
    actions.emplace_back(compare, assay::cli::add_compare_command(*compare));
    auto* ab = app.add_subcommand("ab", "two builds on one GPU in alternating rounds (A B B A ...), compared pair by pair");
    actions.emplace_back(ab, assay::cli::add_ab_command(*ab, args));
    auto* history = app.add_subcommand("history", "list recorded runs, or per-case trends with change points");
    actions.emplace_back(history, assay::cli::add_history_command(*history));
    auto* doctor = app.add_subcommand("doctor", "is this GPU fit to benchmark on: a pass/warn/fail table of its state");
    actions.emplace_back(doctor, assay::cli::add_doctor_command(*doctor));
    auto* report = app.add_subcommand("report", "one self-contained HTML file with plots of runs, a comparison and the history");
    actions.emplace_back(report, assay::cli::add_report_command(*report));
    auto* tune = app.add_subcommand("tune", "search a backend's variants over a bench's shapes: elite, drop rules, promotion");
    actions.emplace_back(tune, assay::cli::add_tune_command(*tune));
    auto* profile = app.add_subcommand("profile", "each case's kernels under Nsight Compute: speed of light, roofline, bottleneck class");
    actions.emplace_back(profile, assay::cli::add_profile_command(*profile, args));
    auto* graph = app.add_subcommand("graph", "lazy-tensor graphs: `graph dump` prints an example before and after the passes");
    actions.emplace_back(graph, assay::cli::add_graph_command(*graph));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    bool any = false;
    for (auto& [sub, action] : actions) any = any || sub->parsed();
    if (!any && argc > 1) {  // name what was given instead of a command: one line, not CLI11's as well
      const std::string given = argv[1];
      std::cerr << "assay: '" << given << "' is not "
                << (given.starts_with("-") ? "an option of assay; a command comes first" : "a command")
                << " (run, check, merge, sessions, list, compare, ab, history, doctor, report, graph, tune, profile;"
                   " see --help)\n";
    } else {
      std::cerr << "assay: " << e.what() << " (see --help)\n";
    }
    return static_cast<int>(ExitCode::bad_input);
  }
  for (auto& [sub, action] : actions) {
    if (!sub->parsed()) continue;
    try {
      const int code = action();
      // What a command printed (a --json document, a table) must have reached its reader: a full
      // disk or a closed pipe is an error, not exit 0 with the output lost.
      if (!std::cout.flush()) {
        std::cerr << "assay: error: the standard output could not be written (a full disk, or a closed file)\n";
        return code == 0 ? static_cast<int>(ExitCode::internal) : code;
      }
      return code;
    } catch (const assay::Error& e) {
      std::cerr << "assay: error: " << e.what() << "\n";
      return static_cast<int>(e.code());
    } catch (const std::filesystem::filesystem_error& e) {
      // A path given that the system refuses (a name over 255 bytes, no permission to search a
      // folder, a symlink loop): bad input, named, rather than an internal error.
      std::cerr << "assay: error: " << (e.path1().empty() ? std::string() : "'" + e.path1().string() + "': ")
                << e.code().message() << "\n";
      return static_cast<int>(ExitCode::bad_input);
    } catch (const std::exception& e) {
      std::cerr << "assay: internal error: " << e.what() << "\n";
      return static_cast<int>(ExitCode::internal);
    }
  }
  return static_cast<int>(ExitCode::bad_input);
}

}  // namespace assay::cli
