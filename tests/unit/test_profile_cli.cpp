// `assay profile` end to end on the CPU: a stand-in ncu (tests/data/ncu/fake_ncu.sh) runs each
// case's worker and hands back a log that ncu wrote on an H100 (tests/data/ncu/h100_logs.tar.xz),
// so that what lies between — the worker under the profiler, the adapter's purpose "profile",
// the log read into the results document and the Markdown — runs here. The real ncu on the GPU
// is tests/gpu/profile_gpu.sh.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/results.hpp"

namespace fs = std::filesystem;
using assay::read_text_file;
using assay::test::files_in;
using assay::test::fresh_dir;
using assay::test::run_assay;

namespace {

// The environment of a profile run with the stand-in ncu giving back `log` (a recorded log).
std::string fake_ncu_env(const std::string& log, const fs::path& args_file) {
  return "ASSAY_NCU=tests/data/ncu/fake_ncu.sh FAKE_NCU_LOG=" + std::string(ASSAY_NCU_LOGS_DIR) + "/" + log +
         ".csv FAKE_NCU_ARGS=" + args_file.string() +
         " TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'";
}

}  // namespace

TEST(ProfileCli, AnAdapterCaseIsCheckedProfiledAndReported) {
  const fs::path d = fresh_dir("profile");
  const auto r = run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_90 --calls 3 --out " +
                               (d / "out").string() + " --ncu-log-dir " + (d / "logs").string(),
                           fake_ncu_env("square_torch", d / "args"));
  EXPECT_EQ(r.code, 0) << r.out;
  // ncu was asked for the window, every process, the card's clocks, cold caches and the table.
  const std::string args = read_text_file(d / "args");
  for (const char* want : {"--profile-from-start off", "--target-processes all", "--clock-control none",
                           "--cache-control all", "--page raw", "--print-units base",
                           "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"})
    EXPECT_NE(args.find(want), std::string::npos) << want << " not in\n" << args;
  const auto docs = files_in(d / "out", ".json");
  ASSERT_EQ(docs.size(), 1u);
  const auto doc = assay::parse_results_json(read_text_file(docs[0]), docs[0].string());  // the schema reads back
  EXPECT_EQ(doc.run.mode, "profile");
  EXPECT_EQ(doc.run.environment.at("profiler"), "ncu 2099.1.0.0");
  ASSERT_EQ(doc.cases.size(), 2u);
  const auto& cpu = doc.cases[0];
  EXPECT_EQ(cpu.status, assay::CaseStatus::skipped);
  EXPECT_NE(cpu.reason.find("no GPU kernel"), std::string::npos);
  const auto& tvm = doc.cases[1];
  ASSERT_EQ(tvm.status, assay::CaseStatus::ok) << tvm.reason;
  ASSERT_TRUE(tvm.check && tvm.recheck);  // the check, then the profiled call's output
  EXPECT_EQ(tvm.recheck->inputs, "profiled");
  EXPECT_FALSE(tvm.measurement);          // no timing in a profile document
  ASSERT_TRUE(tvm.profile);
  EXPECT_EQ(tvm.profile->schema, "assay.profile");
  EXPECT_EQ(tvm.profile->calls, 3u);
  EXPECT_EQ(tvm.profile->bottleneck, "compute-bound");
  ASSERT_EQ(tvm.profile->kernels.size(), 1u);
  EXPECT_EQ(tvm.profile->kernels[0].launches, 3u);
  // The Markdown beside it, and on stdout.
  const std::string md = read_text_file(fs::path(docs[0]).replace_extension(".md"));
  EXPECT_NE(md.find("# assay profile: adapter_fake"), std::string::npos) << md;
  EXPECT_NE(md.find("| `nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT` | 3 |"), std::string::npos) << md;
  EXPECT_NE(r.out.find("**compute-bound**"), std::string::npos) << r.out;
  EXPECT_EQ(files_in(d / "logs", ".csv").size(), 1u);  // the CPU case never went under ncu
  // Its calls ran under the profiler, untimed: compare refuses it, naming it.
  const auto c = run_assay("compare " + docs[0].string() + " " + docs[0].string());
  EXPECT_EQ(c.code, 3) << c.out;
  EXPECT_NE(c.out.find("an `assay profile` document (run mode \"profile\") holds no timings to compare"), std::string::npos)
      << c.out;
  fs::remove_all(d);
}

TEST(ProfileCli, AWindowThatNeverOpenedIsAnErrorNotAnEmptyProfile) {
  // ncu saw the process but profiled no kernel (an adapter that ignores purpose "profile").
  const fs::path d = fresh_dir("profile-empty");
  fs::create_directories(d);
  { std::ofstream(d / "empty.csv") << "==PROF== Connected to process 1 (/usr/bin/python3)\n==PROF== Disconnected\n"; }
  const auto r = run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_90 --filter tvm --out " +
                               (d / "out").string(),
                           "ASSAY_NCU=tests/data/ncu/fake_ncu.sh FAKE_NCU_LOG=" + (d / "empty.csv").string() +
                               " TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py ok'");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("ncu profiled no kernel of the case's calls: an adapter must open the window itself"),
            std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(ProfileCli, NcuErrorsBesideRowsMakeTheCaseAnError) {
  // ncu profiled some kernels and failed on another: the profile would miss that one's time.
  const fs::path d = fresh_dir("profile-ncu-error");
  const auto r = run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_90 --filter tvm --out " +
                               (d / "out").string(),
                           fake_ncu_env("error_blocking_kernel", d / "args"));
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("ncu reported errors, so the profile may miss kernels: Failed to profile \"blocking_kernel\""),
            std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(ProfileCli, AProfilerThatFailsAfterTheRecordIsNamedNotACrash) {
  const fs::path d = fresh_dir("profile-ncu-exit");
  auto profile_under = [&](const std::string& out, const std::string& how) {
    return run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_90 --filter tvm --out " +
                         (d / out).string(),
                     fake_ncu_env("square_torch", d / "args") + " " + how);
  };
  const auto r = profile_under("out", "FAKE_NCU_EXIT=9");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_NE(r.out.find("fake_ncu.sh exited with code 9 after the worker's record"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("crashed"), std::string::npos) << r.out;
  // Killed by a signal after the record: named by the signal, not as "code -1".
  const auto k = profile_under("out2", "FAKE_NCU_SIGNAL=9");
  EXPECT_EQ(k.code, 4) << k.out;
  EXPECT_NE(k.out.find("fake_ncu.sh died of signal 9 (Killed) after the worker's record"), std::string::npos) << k.out;
  EXPECT_EQ(k.out.find("code -1"), std::string::npos) << k.out;
  fs::remove_all(d);
}

TEST(ProfileCli, AWrongOutputOfTheProfiledCallFailsTheCase) {
  const fs::path d = fresh_dir("profile-wrong");
  const auto r = run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_90 --filter tvm --out " +
                               (d / "out").string(),
                           "ASSAY_NCU=tests/data/ncu/fake_ncu.sh FAKE_NCU_LOG=" + std::string(ASSAY_NCU_LOGS_DIR) +
                               "/square_torch.csv TVM_BENCH_CMD='python3 tests/adapters/fake_adapter.py wrong'");
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("check-failed"), std::string::npos) << r.out;
  fs::remove_all(d);
}

TEST(ProfileCli, WithoutNcuOrAGpuNothingRuns) {
  const fs::path d = fresh_dir("profile-none");
  // No ncu anywhere: exit 2, as the acceptance says.
  auto r = run_assay("profile tests/data/adapter_fake.toml --device cpu --out " + (d / "out").string(),
                     "PATH=/usr/bin:/bin ASSAY_NCU=");
  if (!fs::exists("/usr/local/cuda/bin/ncu")) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("skipped: ncu not found"), std::string::npos) << r.out;
  }
  // A set ASSAY_NCU that is no program: bad input, named.
  r = run_assay("profile tests/data/adapter_fake.toml --device cpu --out " + (d / "out").string(),
                "ASSAY_NCU=/nonexistent/ncu");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("ASSAY_NCU=/nonexistent/ncu: not an executable file"), std::string::npos) << r.out;
  r = run_assay("profile tests/data/adapter_fake.toml --device cpu --out " + (d / "out").string(), "ASSAY_NCU=/tmp");
  EXPECT_EQ(r.code, 3) << r.out;  // a folder passes access(X_OK)
  EXPECT_NE(r.out.find("ASSAY_NCU=/tmp: not an executable file"), std::string::npos) << r.out;
  // The host has no GPU kernels; an unknown metric table is named with the known ones.
  r = run_assay("profile tests/data/adapter_fake.toml --device cpu --out " + (d / "out").string(),
                "ASSAY_NCU=tests/data/ncu/fake_ncu.sh");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("skipped: --device cpu: Nsight Compute profiles GPU kernels"), std::string::npos) << r.out;
  r = run_assay("profile tests/data/adapter_fake.toml --device cpu --metric-table sm_120 --out " + (d / "out").string(),
                "ASSAY_NCU=tests/data/ncu/fake_ncu.sh");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("--metric-table 'sm_120': known tables are sm_80, sm_86, sm_87, sm_89, sm_90"), std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(d / "out")) << "a run that could not start left files";
  fs::remove_all(d);
}
