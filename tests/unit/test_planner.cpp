#include <gtest/gtest.h>

#include "core/error.hpp"
#include "runner/plan.hpp"
#include "report/markdown.hpp"
#include "runner/runner.hpp"

using namespace assay;

namespace {
std::string suite_text(const std::string& workload, const std::string& backends, const std::string& dtype,
                       const std::string& axes, const std::string& extra = "") {
  return "[[bench]]\nname = \"g\"\nworkload = \"" + workload + "\"\nbackends = " + backends + "\ndtype = \"" +
         dtype + "\"\n" + extra + "[bench.axes]\n" + axes;
}
std::string plan_error(const std::string& text) {
  try {
    runner::plan_cases(suite::parse_suite(text, "p.toml"), std::nullopt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Planner, InterleavesBackendsPerPoint) {
  const auto s = suite::parse_suite(
      suite_text("gemm", "[\"assay\", \"cpu\"]", "f16", "m = [8, 16]\nn = \"m\"\nk = 4\n", "baseline = \"cpu\"\n"),
      "p.toml");
  const auto cases = runner::plan_cases(s, std::nullopt);
  ASSERT_EQ(cases.size(), 4u);
  EXPECT_EQ(cases[0].id, "g/assay/f16/k=4,m=8,n=8");
  EXPECT_EQ(cases[1].id, "g/cpu/f16/k=4,m=8,n=8");
  EXPECT_EQ(cases[2].id, "g/assay/f16/k=4,m=16,n=16");
  const auto filtered = runner::plan_cases(s, std::string("cpu/.*m=16"));
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0].id, "g/cpu/f16/k=4,m=16,n=16");
}

TEST(Planner, UnknownNamesAreInputErrorsWithLine) {
  auto e = plan_error(suite_text("gemmm", "[\"cpu\"]", "f16", "m = 1\nn = 1\nk = 1\n"));
  EXPECT_NE(e.find("p.toml:1:1: bench 'g': workload: unknown workload 'gemmm' (known: gemm, mlp, attention, block)"), std::string::npos) << e;
  e = plan_error(suite_text("gemm", "[\"cpu\", \"cuBLAS\"]", "f16", "m = 1\nn = 1\nk = 1\n"));
  EXPECT_NE(e.find("backends: unknown backend 'cuBLAS'"), std::string::npos) << e;
  e = plan_error(suite_text("gemm", "[\"cpu\"]", "f64", "m = 1\nn = 1\nk = 1\n"));
  EXPECT_NE(e.find("p.toml:5:9: bench[0].dtype: unknown dtype 'f64'"), std::string::npos) << e;
  e = plan_error(suite_text("gemm", "[\"cpu\"]", "f16", "m = 1\nn = 1\nq = 1\n"));
  EXPECT_NE(e.find("p.toml:9:5: bench 'g': axes.q: gemm has no parameter 'q'"), std::string::npos) << e;
  e = plan_error(suite_text("gemm", "[\"cpu\"]", "f16", "m = 1\nn = 1\n"));
  EXPECT_NE(e.find("axes: parameter 'k' of gemm has no axis"), std::string::npos) << e;
  e = plan_error(suite_text("gemm", "[\"cpu\"]", "f16", "m = 1\nn = 1\nk = 1\n[bench.check]\nshape = { z = 3 }\n"));
  EXPECT_NE(e.find("check.shape.z: gemm has no parameter 'z'"), std::string::npos) << e;
}

TEST(Planner, ZeroSizeNamesTheAxis) {
  const auto e = plan_error(suite_text("gemm", "[\"cpu\"]", "f32", "m = [4, 0]\nn = 1\nk = 1\n"));
  EXPECT_NE(e.find("p.toml:7:5: bench 'g': axes.m: 0 is outside [1, 2147483647]"), std::string::npos) << e;
}

TEST(Planner, OverflowingProblemIsAnInputError) {
  const auto e = plan_error(suite_text("gemm", "[\"cpu\"]", "f32", "m = 2147483647\nn = \"m\"\nk = 1\n"));
  EXPECT_NE(e.find("bench 'g': gemm: a 2147483647 x 2147483647 tensor overflows"), std::string::npos) << e;
}

TEST(Planner, BadFilterRegex) {
  const auto s = suite::parse_suite(suite_text("gemm", "[\"cpu\"]", "f16", "m = 1\nn = 1\nk = 1\n"), "p.toml");
  EXPECT_THROW(runner::plan_cases(s, std::string("(")), InputError);
}

TEST(Planner, ExitCodePrecedence) {
  std::vector<CaseRecord> cases(3);
  cases[0].status = CaseStatus::ok;
  cases[1].status = CaseStatus::skipped;
  cases[2].status = CaseStatus::ok;
  EXPECT_EQ(runner::exit_code_for(cases), ExitCode::ok);
  cases[2].status = CaseStatus::error;
  EXPECT_EQ(runner::exit_code_for(cases), ExitCode::internal);
  cases[0].status = CaseStatus::check_failed;
  EXPECT_EQ(runner::exit_code_for(cases), ExitCode::check_failed);
  std::vector<CaseRecord> skipped(2);
  skipped[0].status = skipped[1].status = CaseStatus::skipped;
  EXPECT_EQ(runner::exit_code_for(skipped), ExitCode::skipped);
}

// Two ok cases of one point: assay (median 80 ns) and its baseline cublas (100 ns).
static std::vector<CaseRecord> assay_and_baseline() {
  std::vector<CaseRecord> cases(2);
  for (auto& c : cases) {
    c.bench = "g";
    c.dtype = "f16";
    c.params = {{"m", 8}};
    c.baseline = "cublas";
    c.status = CaseStatus::ok;
    c.summary = stats::Summary{};
    c.measurement = MeasurementRecord{};
  }
  cases[0].backend = "assay";
  cases[0].summary->median = 80;
  cases[1].backend = "cublas";
  cases[1].summary->median = 100;
  return cases;
}

TEST(Planner, BaselineRatios) {
  auto cases = assay_and_baseline();
  runner::attach_baseline_ratios(cases);
  EXPECT_DOUBLE_EQ(*cases[0].speedup_vs_baseline, 1.25);  // 100 / 80: assay is faster
  EXPECT_DOUBLE_EQ(*cases[0].baseline_median_ns, 100);
  EXPECT_DOUBLE_EQ(*cases[1].speedup_vs_baseline, 1.0);
}

// The ratio at one clock: each sample's time x its SM clock. assay 80 ns at 1500 MHz (120 cycles),
// the baseline 100 ns at 1800 MHz (180): 1.25x in time, 1.5x per clock. Without a clock per sample
// on either side there is none.
TEST(Planner, BaselineRatioAtOneClock) {
  auto cases = assay_and_baseline();
  cases[0].measurement->samples_ns = {80, 79, 81};
  cases[0].measurement->sm_clock_mhz = {1500, 1500, 1500};
  cases[1].measurement->samples_ns = {100, 100, 100};
  cases[1].measurement->sm_clock_mhz = {1800, 1800, 1800};
  runner::attach_baseline_ratios(cases);
  EXPECT_DOUBLE_EQ(*cases[0].speedup_vs_baseline, 1.25);
  EXPECT_DOUBLE_EQ(*cases[0].cycles_speedup_vs_baseline, 1.5);
  EXPECT_DOUBLE_EQ(*cases[1].cycles_speedup_vs_baseline, 1.0);
  ResultsDocument doc;
  doc.cases = cases;
  const std::string md = report::markdown_summary(doc);  // the run's Markdown: speedup, then at one clock
  EXPECT_NE(md.find("| speedup | at one clock |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1.250x | 1.500x |"), std::string::npos) << md;

  cases[1].measurement->sm_clock_mhz = {1800, 0, 1800};  // a probe that saw no tick
  runner::attach_baseline_ratios(cases);
  EXPECT_FALSE(cases[0].cycles_speedup_vs_baseline);
  EXPECT_DOUBLE_EQ(*cases[0].speedup_vs_baseline, 1.25);
}

TEST(Planner, CheckShapeReevaluatesDerivedAxes) {
  const auto s = suite::parse_suite(
      suite_text("gemm", "[\"cpu\"]", "f16", "m = 4096\nn = \"m\"\nk = \"2*m\"\n[bench.check]\nshape = { m = 96, k = 50 }\n"),
      "p.toml");
  const auto p = runner::check_params(s.benches[0], {{"m", 4096}, {"n", 4096}, {"k", 8192}});
  EXPECT_EQ(p.at("m"), 96);
  EXPECT_EQ(p.at("n"), 96);  // derived from the check shape's m
  EXPECT_EQ(p.at("k"), 50);  // named by the check shape: kept
}
