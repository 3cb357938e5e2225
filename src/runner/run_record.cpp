#include "runner/run_record.hpp"

#include <fmt/format.h>

#include "assay/version.hpp"
#include "backends/backend.hpp"
#include "gpu/doctor.hpp"
#include "runner/run_metadata.hpp"

namespace assay::runner {

using measure::cuda_library_versions;

RunRecord describe_run(const RunOptions& opt, const suite::Suite& s, const Executors& ex,
                       const std::vector<std::string>& devices) {
  RunRecord run;
  run.assay_version = kVersion;
  run.assay_build_commit = kBuildCommit;
  run.git_commit = git_commit(&run.git_dirty);
  run.started_utc = utc_now_iso8601();
  run.host = host_name();
  run.command_line = opt.command_line;
  run.tag = opt.tag;
  run.suite_path = opt.suite_path;
  run.suite_name = s.name;
  run.suite_hash = s.hash;
  run.mode = opt.check_only ? "check" : opt.mode.value_or(s.benches.front().measure.mode);
  for (const auto& b : s.benches)
    if (!opt.check_only && !opt.mode && b.measure.mode != run.mode) run.mode = "mixed";
  run.device = ex.device;  // with --devices, the first listed GPU (runner.cpp)
  if (!ex.cuda_ok && !opt.check_only) run.mode = "cpu";  // every case is measured by the host clock
  run.shard = opt.shard_count > 1 ? std::to_string(opt.shard_index) + "/" + std::to_string(opt.shard_count) : "";
  run.libraries = cuda_library_versions();
  for (const Backend* b : all_backends())
    if (auto v = b->library_version(); !v.empty()) run.libraries[b->name()] = v;
  run.environment = relevant_environment();
  run.environment["seed"] = std::to_string(opt.seed);
  run.environment["tf32"] = "off (cuBLAS CUBLAS_COMPUTE_32F with CUBLAS_DEFAULT_MATH)";
  run.environment["cublas_math_mode"] = "CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION";
  run.environment["isolation"] = opt.isolate ? "worker process per case" : "in-process";
  if (opt.rounds) run.environment["rounds"] = std::to_string(*opt.rounds) + " (assay run --rounds, over the suite's)";
  if (opt.gap_us) run.environment["gap_us"] = fmt::format("{:g} (assay run --gap-us, over the suite's)", *opt.gap_us);
  if (opt.l2_flush) run.environment["l2_flush"] = *opt.l2_flush + " (assay run --l2-flush, over the suite's)";
  if (devices.size() > 1) {
    std::string list;
    for (const auto& d : devices) list += (list.empty() ? "" : ",") + d;
    run.environment["devices"] = list;
  }
  if (ex.cuda_ok) {
    for (const auto& [k, v] : gpu::gpu_environment(ex.device.uuid)) run.environment[k] = v;
  }
  return run;
}

}  // namespace assay::runner
