#include <iostream>
#include <regex>

#include "cli/commands.hpp"
#include "core/results.hpp"
#include "report/markdown.hpp"
#include "runner/runner.hpp"

namespace assay::cli {

namespace {
struct RunFlags {
  runner::RunOptions opt;
  std::string mode, filter;
  bool json = false, quiet = false;
};
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
  if (!check_only)
    app.add_option("--mode", flags->mode, "override the suite's mode")->check(CLI::IsMember({"cold", "hot", "graph", "host"}));
  app.add_option("--filter", flags->filter, "run only cases whose id matches this regex (bench/backend/dtype/params)");
  app.add_option("--seed", flags->opt.seed, "base seed of the random inputs")->capture_default_str();
  app.add_flag("--json", flags->json, "print the results document on stdout instead of the table");
  app.add_flag("--quiet", flags->quiet, "print only errors and the final line");

  return [flags]() -> int {
    auto& f = *flags;
    if (!f.mode.empty()) f.opt.mode = f.mode;
    if (!f.filter.empty()) f.opt.filter = f.filter;
    if (!std::regex_match(f.opt.tag, std::regex("[A-Za-z0-9._-]*")))
      throw InputError("--tag '" + f.opt.tag + "': use only letters, digits, '.', '_' and '-'");
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
    std::size_t counts[4] = {};
    for (const auto& c : out.doc.cases) ++counts[static_cast<int>(c.status)];
    std::cerr << counts[0] << " ok, " << counts[1] << " check-failed, " << counts[3] << " error, " << counts[2]
              << " skipped; results: " << out.results_path << "\n";
    return static_cast<int>(out.code);
  };
}

}  // namespace assay::cli
