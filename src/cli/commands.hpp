#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace assay::cli {

// Each subcommand registers itself on the app and returns the action that runs it; the
// action returns the process exit code.
using Action = std::function<int()>;
Action add_run_command(CLI::App& app, const std::vector<std::string>& argv, bool check_only);
Action add_list_command(CLI::App& app);
Action add_merge_command(CLI::App& app, const std::vector<std::string>& argv);
Action add_sessions_command(CLI::App& app);
Action add_compare_command(CLI::App& app);
Action add_ab_command(CLI::App& app, const std::vector<std::string>& argv);
Action add_history_command(CLI::App& app);
Action add_doctor_command(CLI::App& app);
Action add_report_command(CLI::App& app);
Action add_graph_command(CLI::App& app);
Action add_tune_command(CLI::App& app);
Action add_profile_command(CLI::App& app, const std::vector<std::string>& argv);

// The whole command line (app.cpp): what the assay executable's main() calls, and the test
// binary's too (tests/backends), which adds the planted-fault backends first.
int run_cli(int argc, char** argv);

}  // namespace assay::cli
