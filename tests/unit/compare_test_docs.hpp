// Results documents built in memory for the comparison, history and CLI tests: a run on a named
// GPU with gemm cases whose raw samples the test chooses.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "stats/summary.hpp"

namespace assay::test {

inline constexpr const char* kH100 = "NVIDIA H100 80GB HBM3";

// The folders of fresh_test_dir, removed when the test process exits (a test that fails midway
// leaves nothing in /tmp either).
struct RemovedAtExit {
  std::vector<std::filesystem::path> dirs;
  ~RemovedAtExit() {
    std::error_code ec;
    for (const auto& d : dirs) std::filesystem::remove_all(d, ec);
  }
};
inline RemovedAtExit& removed_at_exit() {
  static RemovedAtExit r;
  return r;
}

// An empty folder of its own under the temporary folder, for one test of this process.
inline std::filesystem::path fresh_test_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("assay-compare-test-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  removed_at_exit().dirs.push_back(d);
  return d;
}

inline CaseRecord ok_case(const std::string& bench, const std::string& backend, std::int64_t m,
                          const std::vector<double>& samples_ns, const std::string& mode = "cold",
                          double peak_tflops = 1000) {
  CaseRecord c;
  c.bench = bench;
  c.workload = "gemm";
  c.backend = backend;
  c.dtype = "f16";
  c.params = {{"k", m}, {"m", m}, {"n", m}};
  c.id = bench + "/" + backend + "/f16/k=" + std::to_string(m) + ",m=" + std::to_string(m) + ",n=" + std::to_string(m);
  c.status = CaseStatus::ok;
  MeasurementRecord meas;
  meas.mode = mode;
  meas.samples_ns = samples_ns;
  meas.stop_reason = "converged";
  c.measurement = meas;
  c.summary = stats::summarize(samples_ns);
  DerivedRecord d;
  d.flops = 2.0 * static_cast<double>(m * m * m);
  d.min_bytes = 6.0 * static_cast<double>(m * m);
  d.tflops = d.flops / c.summary->median / 1e3;
  d.peak_tflops = peak_tflops;
  d.pct_of_peak = 100 * d.tflops / peak_tflops;
  c.derived = d;
  return c;
}

inline CaseRecord failed_case(const std::string& bench, const std::string& backend, std::int64_t m) {
  CaseRecord c = ok_case(bench, backend, m, {1.0});
  c.status = CaseStatus::check_failed;
  c.reason = "check failed: fails=3/4096";
  c.measurement.reset();
  c.summary.reset();
  c.derived.reset();
  return c;
}

inline ResultsDocument doc_on(const std::string& gpu, std::vector<CaseRecord> cases, const std::string& tag = "",
                              const std::string& commit = "") {
  ResultsDocument d;
  d.run.assay_version = "test";
  d.run.started_utc = "2026-11-20T10:00:00Z";
  d.run.finished_utc = "2026-11-20T10:01:00Z";
  d.run.host = "test-host";
  d.run.suite_name = "gemm";
  d.run.suite_path = "suites/gemm.toml";
  d.run.suite_hash = "0123456789abcdef";
  d.run.mode = "cold";
  d.run.tag = tag;
  d.run.git_commit = commit;
  d.run.device.kind = "cuda";
  d.run.device.index = 0;
  d.run.device.name = gpu;
  d.cases = std::move(cases);
  return d;
}

}  // namespace assay::test
