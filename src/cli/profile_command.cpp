// assay profile SUITE [--filter RE]: each case checked, then its calls profiled under Nsight
// Compute (runner/profile.hpp); one results document whose cases carry a profile block, and a
// Markdown summary with each kernel's numbers and bottleneck class. Never recorded in the history:
// a profiled call is slowed by the profiler and is no timing.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/device_flag.hpp"
#include "core/interrupt.hpp"
#include "measure/executor.hpp"
#include "report/markdown.hpp"
#include "runner/runner.hpp"
#include "tune/ncu_table.hpp"

namespace assay::cli {

Action add_profile_command(CLI::App& app, const std::vector<std::string>& argv) {
  struct Flags {
    runner::RunOptions opt;
    runner::ProfileOptions p;
    std::string metric_table, filter;
    CLI::Option* filter_opt = nullptr;
    bool quiet = false;
  };
  auto f = std::make_shared<Flags>();
  f->opt.command_line = argv;
  f->opt.out_dir = "assay-results";
  app.add_option("suite", f->opt.suite_path, "suite file (TOML)")->required();
  f->filter_opt = app.add_option("--filter", f->filter, "only the cases whose id matches this regex");
  app.add_option("--device", f->opt.device, "CUDA device index")->capture_default_str();
  app.add_option("--out", f->opt.out_dir, "folder for the results document and its Markdown summary")->capture_default_str();
  app.add_option("--tag", f->opt.tag, "a label in the results file name");
  app.add_option("--calls", f->p.calls, "calls of each case inside the profiler's window (metrics: median over the launches)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app.add_option("--clock-control", f->p.clock_control,
                 "ncu --clock-control: none (the GPU's clocks as they are) or base (ncu locks them to base; it changes the card's state)")
      ->check(CLI::IsMember({"none", "base"}))
      ->capture_default_str();
  app.add_option("--timeout", f->p.timeout_s, "seconds one case may take under the profiler")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--ncu-log-dir", f->p.log_dir, "keep each case's raw ncu log (CSV) in this folder");
  app.add_option("--metric-table", f->metric_table,
                 "the architecture's metric names to ask for (sm_80, sm_86, sm_87, sm_89, sm_90; default: the device's)");
  app.add_flag("--quiet", f->quiet, "no progress lines and no table");
  return [f]() -> int {
    if (f->filter_opt->count() && f->filter.empty()) throw InputError("--filter '': give a regex of case ids");
    if (!f->filter.empty()) f->opt.filter = f->filter;
    check_device_flag(f->opt.device);
    f->p.ncu = runner::find_ncu();
    if (f->p.ncu.empty()) {
      std::cerr << "skipped: ncu not found (set ASSAY_NCU, or put Nsight Compute's ncu on PATH)\n";
      return static_cast<int>(ExitCode::skipped);
    }
    if (!f->metric_table.empty()) {
      const std::string cc = f->metric_table.rfind("sm_", 0) == 0 && f->metric_table.size() == 5
                                 ? f->metric_table.substr(3, 1) + "." + f->metric_table.substr(4, 1)
                                 : "";
      f->p.metrics = tune::metric_table_for(cc);
      if (!f->p.metrics)
        throw InputError("--metric-table '" + f->metric_table + "': known tables are " + tune::known_metric_tables());
    } else {
      if (f->opt.device == "cpu") {
        std::cerr << "skipped: --device cpu: Nsight Compute profiles GPU kernels\n";
        return static_cast<int>(ExitCode::skipped);
      }
      const auto device = measure::describe_cuda_device(f->opt.device);
      if (!device) {
        std::cerr << "skipped: no CUDA device " << f->opt.device << " here to profile on\n";
        return static_cast<int>(ExitCode::skipped);
      }
      f->p.metrics = tune::metric_table_for(device->compute_capability);
      if (!f->p.metrics)
        throw InputError(device->name + " is " + sm_name(device->compute_capability) +
                         ": assay has no metric table for it (known: " + tune::known_metric_tables() +
                         "); --metric-table picks one");
    }
    if (!f->p.log_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(f->p.log_dir, ec);
      if (!std::filesystem::is_directory(f->p.log_dir))
        throw InputError("--ncu-log-dir '" + f->p.log_dir + "': cannot create the folder");
    }
    f->p.tool = runner::ncu_tool_name(f->p.ncu);
    f->opt.profile = f->p;
    f->opt.sanitize = false;
    install_interrupt_handlers();
    const auto progress = [f](const std::string& line) {
      if (!f->quiet) std::cerr << line << "\n";
    };
    const runner::RunOutcome out = runner::run_suite(f->opt, progress);
    if (out.code == ExitCode::skipped) {
      std::cerr << "skipped: " << out.skipped_reason << "\n";
      return static_cast<int>(out.code);
    }
    if (!f->quiet) std::cout << report::profile_markdown(out.doc);
    std::cerr << "results: " << out.results_path << " and " << out.markdown_path << "\n";
    return out.interrupted_by ? 128 + out.interrupted_by : static_cast<int>(out.code);
  };
}

}  // namespace assay::cli
