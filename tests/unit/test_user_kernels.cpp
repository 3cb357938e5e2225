// A program made as a user makes one (include/assay/bench.hpp, tests/bench_api/) with kernels
// broken one way each: the case protocol catches every one, and nothing wrong is timed.
#include <gtest/gtest.h>

#include <map>

#include "cli_support.hpp"
#include "core/atomic_file.hpp"
#include "core/ids.hpp"
#include "core/results.hpp"

using namespace assay;
using namespace assay::test;

namespace {

std::string testbed() {
  return (fs::read_symlink("/proc/self/exe").parent_path() / "assay-user-kernels-testbed").string();
}

CliResult run_testbed(const std::string& args) { return run_program(testbed(), args); }

const char* kSuite = R"([defaults.measure]
warmup_calls = 0
warmup_min_s = 0
min_samples = 3
max_samples = 10
min_time_s = 0
timeout_s = 5
[defaults.check]
atol = 0.0001
rtol = 0.0001
[[bench]]
name = "edges"
workload = "gemm"
backends = ["cpu", "user-gemm", "user-gemm-edge", "user-gemm-oob", "user-gemm-flaky", "user-gemm-cache"]
baseline = "cpu"
dtype = "f32"
[bench.axes]
m = [16, 13]
n = 24
k = 8
[[bench]]
name = "floor"
workload = "gemm"
backends = ["user-gemm", "user-gemm-lazy"]
dtype = "f32"
[bench.axes]
m = 256
n = 256
k = 256
[[bench]]
name = "trusted"
workload = "scale_add_trusted"
backends = ["user-scale-add-right", "user-scale-add-last-wrong"]
dtype = "f32"
[bench.axes]
n = 1000
[[bench]]
name = "self"
workload = "scale_add_trusted"
backends = ["trusted-scale-add"]
dtype = "f32"
[bench.axes]
n = 10
[[bench]]
name = "nan-flops"
workload = "scale_add_nan_flops"
backends = ["user-scale-add-nan-flops"]
dtype = "f32"
[bench.axes]
n = 10
[[bench]]
name = "partial-oracle"
workload = "scale_add_partial_oracle"
backends = ["user-scale-add-partial-oracle"]
dtype = "f32"
[bench.axes]
n = 10
[[bench]]
name = "fixed-inputs"
workload = "scale_add_fixed_inputs"
backends = ["user-scale-add-fixed-inputs"]
dtype = "f32"
[bench.axes]
n = 10
[[bench]]
name = "oracle-throws"
workload = "scale_add_oracle_throws"
backends = ["user-scale-add-thrown-at"]
dtype = "f32"
[bench.axes]
n = 100
)";

}  // namespace

TEST(UserKernels, EveryPlantedFaultIsCaughtAndTheSuiteGoesOn) {
  const fs::path dir = fresh_dir("user-kernels");
  fs::create_directories(dir);
  write_file_atomically(dir / "suite.toml", kSuite);
  const auto r = run_testbed("run " + (dir / "suite.toml").string() + " --device cpu --no-history --out " +
                             (dir / "out").string());
  EXPECT_EQ(r.code, 1) << r.out;  // failed checks, a crash, an implausible time
  const auto files = files_in(dir / "out", ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  std::map<std::string, const CaseRecord*> by;
  for (const auto& c : doc.cases) by[c.backend + " " + params_string(c.params)] = &c;
  const auto at = [&](const std::string& backend, const std::string& shape) -> const CaseRecord& {
    const auto it = by.find(backend + " " + shape);
    if (it == by.end()) throw std::runtime_error("no case " + backend + " " + shape);
    return *it->second;
  };
  const std::string m16 = "k=8,m=16,n=24", m13 = "k=8,m=13,n=24", big = "k=256,m=256,n=256";
  for (const auto& shape : {m16, m13}) {
    EXPECT_EQ(at("user-gemm", shape).status, CaseStatus::ok) << at("user-gemm", shape).reason;
    EXPECT_EQ(at("user-gemm-oob", shape).status, CaseStatus::crashed) << at("user-gemm-oob", shape).reason;
    const auto& flaky = at("user-gemm-flaky", shape);
    EXPECT_EQ(flaky.status, CaseStatus::check_failed);
    EXPECT_NE(flaky.reason.find("call 2 of 2, the earlier passed"), std::string::npos) << flaky.reason;
    const auto& cache = at("user-gemm-cache", shape);
    EXPECT_EQ(cache.status, CaseStatus::check_failed);
    EXPECT_NE(cache.reason.find("recheck on fresh inputs"), std::string::npos) << cache.reason;
    EXPECT_FALSE(cache.summary.has_value());
  }
  // Right where m is a multiple of 8, wrong at the ragged edge.
  EXPECT_EQ(at("user-gemm-edge", m16).status, CaseStatus::ok);
  EXPECT_EQ(at("user-gemm-edge", m13).status, CaseStatus::check_failed);
  // A timed call that does nothing is below the physical floor: implausible, never a speedup.
  EXPECT_EQ(at("user-gemm", big).status, CaseStatus::ok) << at("user-gemm", big).reason;
  const auto& lazy = at("user-gemm-lazy", big);
  EXPECT_EQ(lazy.status, CaseStatus::implausible) << lazy.reason;
  EXPECT_NE(lazy.reason.find("physical floor"), std::string::npos) << lazy.reason;
  // A trusted backend as the oracle of a workload of the program's own.
  const auto& right = at("user-scale-add-right", "n=1000");
  EXPECT_EQ(right.status, CaseStatus::ok) << right.reason;
  ASSERT_TRUE(right.check.has_value());
  EXPECT_EQ(right.check->oracle, "backend:trusted-scale-add");
  const auto& wrong = at("user-scale-add-last-wrong", "n=1000");
  EXPECT_EQ(wrong.status, CaseStatus::check_failed);
  EXPECT_NE(wrong.reason.find("element 999"), std::string::npos) << wrong.reason;
  // The oracle kernel's own case: no check against itself.
  const auto& self = at("trusted-scale-add", "n=10");
  EXPECT_EQ(self.status, CaseStatus::error) << self.reason;
  EXPECT_NE(self.reason.find("its check would compare it with itself"), std::string::npos) << self.reason;
  const auto& nan_flops = at("user-scale-add-nan-flops", "n=10");
  EXPECT_EQ(nan_flops.status, CaseStatus::error) << nan_flops.reason;
  EXPECT_NE(nan_flops.reason.find("scale_add_nan_flops: flops gave nan"), std::string::npos) << nan_flops.reason;
  const auto& partial = at("user-scale-add-partial-oracle", "n=10");
  EXPECT_EQ(partial.status, CaseStatus::error) << partial.reason;
  EXPECT_NE(partial.reason.find("the reference left element 9 of the output unwritten"), std::string::npos)
      << partial.reason;
  const auto& fixed = at("user-scale-add-fixed-inputs", "n=10");
  EXPECT_EQ(fixed.status, CaseStatus::ok) << fixed.reason;
  ASSERT_TRUE(fixed.recheck.has_value());
  EXPECT_EQ(fixed.recheck->inputs, "timed");  // the "fresh" inputs were the timed ones
  EXPECT_EQ(right.recheck->inputs, "fresh");
  const auto& thrown = at("user-scale-add-thrown-at", "n=100");
  EXPECT_EQ(thrown.status, CaseStatus::error) << thrown.reason;
  EXPECT_NE(thrown.reason.find("scale_add_oracle_throws: the reference threw an exception that is not a std::exception"),
            std::string::npos)
      << thrown.reason;
  fs::remove_all(dir);
}

// Sizes that wrap a 64-bit count are the suite's bad input, named where the suite asks for them,
// not a crash in assay's input generation read as the kernel's.
TEST(UserKernels, TensorsPastTwoToTheSixtyTwoBytesAreBadInput) {
  const fs::path dir = fresh_dir("user-kernels-cube");
  fs::create_directories(dir);
  write_file_atomically(dir / "suite.toml", R"([[bench]]
name = "cube"
workload = "cube"
backends = ["user-cube"]
dtype = "f32"
[bench.axes]
n = 2097152
)");
  const auto r = run_testbed("run " + (dir / "suite.toml").string() + " --device cpu --no-history --out " +
                             (dir / "out").string());
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("suite.toml:1:1: bench 'cube': cube at n=2097152: x of shape [2097152,2097152,2097152] takes "
                       "the tensors past 2^62 bytes"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
  fs::remove_all(dir);
}

TEST(UserKernels, WithoutASubcommandTheRegisteredBenchmarksRun) {
  const fs::path dir = fresh_dir("user-kernels-default");
  const auto r = run_testbed("--device cpu --no-history --out " + dir.string());
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(fs::exists(dir / "assay-user-kernels-testbed.suite.toml"));
  const auto files = files_in(dir, ".json");
  ASSERT_EQ(files.size(), 1u) << r.out;
  const ResultsDocument doc = parse_results_json(read_text_file(files[0]), files[0].string());
  ASSERT_EQ(doc.cases.size(), 3u);  // scale-add's two values and scale-add-one's one
  for (const auto& c : doc.cases) {
    EXPECT_EQ(c.workload, "scale_add");
    EXPECT_EQ(c.status, CaseStatus::ok) << c.reason;
    ASSERT_TRUE(c.check && c.recheck);
    EXPECT_EQ(c.check->oracle, "fp64-cpu");
    EXPECT_EQ(c.recheck->inputs, "fresh");
  }
  // Its results are assay's: `compare` reads two of its runs.
  const fs::path again = fresh_dir("user-kernels-again");
  ASSERT_EQ(run_testbed("--device cpu --no-history --out " + again.string()).code, 0);
  const auto cmp = run_testbed("compare " + dir.string() + " " + again.string());
  EXPECT_NE(cmp.out.find("scale-add"), std::string::npos) << cmp.out;
  EXPECT_EQ(cmp.out.find("error"), std::string::npos) << cmp.out;
  fs::remove_all(again);
  // The other subcommands are assay's: the kernels are listed among the backends.
  const auto list = run_testbed("list");
  EXPECT_EQ(list.code, 0) << list.out;
  EXPECT_NE(list.out.find("user-gemm-lazy"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("scale_add"), std::string::npos) << list.out;
  fs::remove_all(dir);
}
