// assay profile's reading of Nsight Compute (src/tune/ncu_table, profile_summary) on the logs
// ncu 2025.3.1 wrote on an H100 for `assay profile tests/data/profile_gpu.toml` (packed in
// tests/data/ncu/h100_logs.tar.xz, unpacked at configure time), and on small made-up tables for
// what those logs do not show.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "tune/ncu_table.hpp"
#include "tune/profile_summary.hpp"

using namespace assay;
using namespace assay::tune;

namespace {

std::string log_text(const std::string& name) {
  const std::string path = std::string(ASSAY_NCU_LOGS_DIR) + "/" + name + ".csv";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The context of the recorded cases: 3 calls; H100 SXM peaks as assay computes them.
ProfileContext context(double flops, double min_bytes) {
  ProfileContext c;
  c.calls = 3;
  c.flops = flops;
  c.min_bytes = min_bytes;
  c.peak_tflops = 1070.5;  // 132 SMs x 4096 FLOP/clk x 1980 MHz
  c.peak_gbs = 3352.32;
  c.tool = "ncu 2025.3.1.0";
  c.clock_control = "none";
  return c;
}

const MetricTable& hopper() { return *metric_table_for("9.0"); }

ProfileRecord summarize_log(const std::string& name, double flops, double min_bytes) {
  return summarize_profile(parse_ncu_csv(log_text(name), name), hopper(), context(flops, min_bytes));
}

constexpr double kSquareFlops = 2.0 * 4096 * 4096 * 4096, kSquareBytes = 3.0 * 4096 * 4096 * 2;
constexpr double kCopyFlops = 2.0 * 16384 * 16384 * 16, kCopyBytes = (2.0 * 16384 * 16 + 16384.0 * 16384) * 2;

}  // namespace

TEST(NcuLog, ReadsTheRecordedRawPage) {
  const NcuTable t = parse_ncu_csv(log_text("square_cublas"), "square_cublas");
  ASSERT_EQ(t.rows.size(), 3u);  // three calls, one kernel each
  for (const auto& r : t.rows) {
    EXPECT_EQ(r.kernel, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT");
    EXPECT_EQ(r.grid, "(2, 66, 1)");
    EXPECT_EQ(r.block, "(384, 1, 1)");
  }
  // Thousands separators, units in base form.
  const auto ns = t.rows[0].number("gpu__time_duration.sum");
  ASSERT_TRUE(ns);
  EXPECT_GT(*ns, 150e3);
  EXPECT_LT(*ns, 250e3);
  EXPECT_EQ(t.rows[0].number("launch__registers_per_thread").value_or(0), 168);
  EXPECT_FALSE(t.rows[0].number("no__such_metric.sum"));
  ASSERT_FALSE(t.warnings.empty());  // "Running with unmodified GPU clocks" (--clock-control none)
  EXPECT_NE(t.warnings[0].find("unmodified GPU clocks"), std::string::npos);
  EXPECT_TRUE(t.errors.empty());
}

TEST(NcuLog, EveryMetricOfTheHopperTableIsInTheRecordedLogs) {
  // What `assay profile` asks ncu for on sm_90 is what ncu answered: a renamed metric fails here.
  const NcuTable t = parse_ncu_csv(log_text("square_assay"), "square_assay");
  for (const auto& m : hopper().metric_list()) {
    if (m.rfind("regex:", 0) == 0) continue;
    EXPECT_TRUE(t.rows.at(0).number(m)) << m;
  }
  std::size_t stalls = 0;
  for (const auto& [metric, value] : t.rows.at(0).values) stalls += !stall_reason(metric).empty();
  EXPECT_GE(stalls, 15u);
}

TEST(NcuLog, ErrorLinesOfAFailedProfileAreKept) {
  // ncu profiling a whole `assay run` (no window): it cannot replay assay's blocking kernel.
  const NcuTable t = parse_ncu_csv(log_text("error_blocking_kernel"), "error_blocking_kernel");
  ASSERT_EQ(t.errors.size(), 2u);
  EXPECT_NE(t.errors[0].find("Failed to profile \"blocking_kernel\""), std::string::npos);
  EXPECT_EQ(t.rows.size(), 5u);
}

// Compute-bound on every stack but Triton's, whose L1/shared traffic (memory throughput 80%) is
// above its tensor pipe (70%): the on-chip memory binds it first.
TEST(NcuProfile, GemmAt4096IsComputeBoundOnEveryStackButTriton) {
  for (const char* name : {"square_assay", "square_cublas", "square_torch", "square_triton", "square_jax"}) {
    const ProfileRecord p = summarize_log(name, kSquareFlops, kSquareBytes);
    SCOPED_TRACE(name);
    EXPECT_EQ(p.bottleneck, std::string(name) == "square_triton" ? "memory-bound" : "compute-bound") << p.rule;
    ASSERT_EQ(p.kernels.size(), 1u);
    const auto& k = p.kernels[0];
    EXPECT_EQ(k.launches, 3u);
    EXPECT_GT(k.tensor_pipe_pct.value_or(0), 50);
    EXPECT_GT(k.wgmma_instructions.value_or(0), 0);  // Hopper GEMMs issue wgmma ...
    EXPECT_EQ(k.mma_instructions.value_or(-1), 0);   // ... and no mma.sync
    EXPECT_EQ(k.local_bytes.value_or(-1), 0);        // no spills
    EXPECT_FALSE(k.stalls.empty());
    for (const auto& [reason, v] : k.stalls) EXPECT_NE(reason, "selected");
    // One kernel per call: its time is the call's, the mean of its three launches (within 1% of
    // their median here).
    EXPECT_DOUBLE_EQ(p.kernel_ns_per_call, k.total_ns / 3);
    EXPECT_NEAR(p.kernel_ns_per_call, k.duration_ns, 0.01 * k.duration_ns);
    EXPECT_FALSE(p.under_memory_roof);
    EXPECT_GT(p.fraction_of_bound, 0.4);
    EXPECT_LT(p.fraction_of_bound, 1.0);
  }
}

TEST(NcuProfile, CopyLikeGemmIsMemoryBound) {
  for (const char* name : {"copy_assay", "copy_cublas"}) {
    const ProfileRecord p = summarize_log(name, kCopyFlops, kCopyBytes);
    SCOPED_TRACE(name);
    EXPECT_EQ(p.bottleneck, "memory-bound") << p.rule;
    EXPECT_TRUE(p.under_memory_roof);
    const auto& k = p.kernels.at(0);
    EXPECT_GT(k.dram_pct.value_or(0), 70);
    // The output is 512 MiB: DRAM took all of it but what the 50 MB L2 still held dirty when
    // the kernel ended (written back after it).
    EXPECT_GT(k.dram_bytes.value_or(0), 16384.0 * 16384 * 2 - 50e6);
    EXPECT_LT(k.dram_bytes.value_or(0), 16384.0 * 16384 * 2 * 1.1);
  }
}

TEST(NcuProfile, TheMissionAttentionShapeIsLatencyBound) {
  // 32 query tiles for 132 SMs: neither pipe nor DRAM is busy.
  constexpr double flops = 4.0 * 8 * 512 * 512 * 64, bytes = 4.0 * 8 * 512 * 64 * 2;
  for (const char* name : {"attention_assay", "attention_cudnn"}) {
    const ProfileRecord p = summarize_log(name, flops, bytes);
    SCOPED_TRACE(name);
    EXPECT_EQ(p.bottleneck, "latency-bound") << p.rule;
    EXPECT_LT(p.fraction_of_bound, 0.2);
  }
}

namespace {
// A made-up raw page: two kernels of one call, one of assay's own, prefixed units.
const char* kMadeUp =
    "==PROF== Connected to process 1 (/x/assay)\n"
    "==ERROR== something ncu said\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
    "\"gpu__time_duration.sum\",\"dram__throughput.avg.pct_of_peak_sustained_elapsed\","
    "\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"dram__bytes_read.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"%\",\"%\",\"Mbyte\"\n"
    "\"0\",\"7\",\"assay\",\"h\",\"softmax<float, 4>(int, \"\"x\"\")\",\"(128, 1, 1)\",\"(64, 1, 1)\",\"1.5\",\"90\",\"10\",\"2\"\n"
    "\"1\",\"7\",\"assay\",\"h\",\"void assay::gpu::(anonymous namespace)::spin_kernel(unsigned long long)\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"100\",\"0\",\"1\",\"0\"\n"
    "\"2\",\"7\",\"assay\",\"h\",\"gemm\",\"(256, 1, 1)\",\"(8, 8, 1)\",\"0.5\",\"10\",\"60\",\"n/a\"\n";
}  // namespace

TEST(NcuLog, QuotesUnitsAndNonNumbers) {
  const NcuTable t = parse_ncu_csv(kMadeUp, "made-up");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].kernel, "softmax<float, 4>(int, \"x\")");  // commas and doubled quotes inside quotes
  EXPECT_EQ(t.rows[0].number("gpu__time_duration.sum").value_or(0), 1500);  // usecond -> ns
  EXPECT_EQ(t.rows[0].number("dram__bytes_read.sum").value_or(0), 2e6);     // Mbyte -> byte
  EXPECT_FALSE(t.rows[2].number("dram__bytes_read.sum"));                  // "n/a"
  ASSERT_EQ(t.errors.size(), 1u);
  EXPECT_EQ(t.errors[0], "something ncu said");
}

TEST(NcuProfile, AssaysOwnKernelsAreLeftOutAndKernelsOrderedByTime) {
  MetricTable m = hopper();
  ProfileContext c;
  c.calls = 1;
  const ProfileRecord p = summarize_profile(parse_ncu_csv(kMadeUp, "made-up"), m, c);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].name, "softmax<float, 4>(int, \"x\")");  // 1.5 us before 0.5 us
  EXPECT_EQ(p.kernels[0].bottleneck, "memory-bound");
  EXPECT_EQ(p.kernels[1].bottleneck, "compute-bound");              // no tensor pipe: SM throughput
  EXPECT_DOUBLE_EQ(p.kernel_ns_per_call, 2000);
  ASSERT_EQ(p.excluded.size(), 1u);
  EXPECT_NE(p.excluded[0].find("spin_kernel"), std::string::npos);
  EXPECT_EQ(p.bottleneck, "memory-bound");  // the kernel that takes most of the call's time
  EXPECT_EQ(p.bound_tflops, 0);             // no peaks given: no roofline
}

TEST(NcuLog, BadTablesAreNamedByLine) {
  EXPECT_THROW(parse_ncu_csv("\"Kernel Name\",\"x\"\n", "t"), std::invalid_argument);  // no ID header
  try {
    parse_ncu_csv("==PROF== x\n\"ID\",\"Kernel Name\"\n\"\",\"\"\n\"0\"\n", "log.csv");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("log.csv:4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_ncu_csv("\"ID\",\"Kernel Name\"\n\"0\",\"unclosed\n", "t"), std::invalid_argument);
}

// A truncated log ends in a bare "==ERROR==" (it was an internal error); numbers strtod takes but
// ncu does not write are no numbers; a percentage out of [0, 200] makes the case an error.
TEST(NcuLog, BareTagsOddNumbersAndImpossiblePercentages) {
  const NcuTable t = parse_ncu_csv(std::string(kMadeUp) + "==WARNING==\n==ERROR==", "cut");
  EXPECT_EQ(t.errors.back(), "");
  EXPECT_EQ(t.warnings.back(), "");
  for (const char* odd : {"inf", "nan", "1e999", "0x10"}) {
    NcuRow r;
    r.values["m__x.sum"] = odd;
    EXPECT_FALSE(r.number("m__x.sum")) << odd;
  }
  NcuTable neg = parse_ncu_csv(kMadeUp, "made-up");
  for (auto& row : neg.rows) row.values[hopper().tensor_pipe_pct] = "-500";
  ProfileContext c;
  c.calls = 1;
  EXPECT_THROW(summarize_profile(neg, hopper(), c), std::invalid_argument);
}

// One kernel name at two launch shapes (a GEMM at two sizes): two entries, and the call's time is
// the sum of every launch, not a median times the launches (3 of 100, 10, 1 us: 111, not 30).
TEST(NcuProfile, LaunchesAreSummedAndGroupedByShape) {
  const char* log =
      "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Block Size\",\"Grid Size\","
      "\"gpu__time_duration.sum\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
      "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"usecond\",\"%\"\n"
      "\"0\",\"7\",\"a\",\"h\",\"gemm\",\"(256, 1, 1)\",\"(64, 1, 1)\",\"100\",\"90\"\n"
      "\"1\",\"7\",\"a\",\"h\",\"gemm\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"10\",\"60\"\n"
      "\"2\",\"7\",\"a\",\"h\",\"gemm\",\"(256, 1, 1)\",\"(8, 1, 1)\",\"1\",\"60\"\n";
  ProfileContext c;
  c.calls = 1;
  const ProfileRecord p = summarize_profile(parse_ncu_csv(log, "two-shapes"), hopper(), c);
  ASSERT_EQ(p.kernels.size(), 2u);
  EXPECT_EQ(p.kernels[0].grid, "(64, 1, 1)");
  EXPECT_DOUBLE_EQ(p.kernels[0].total_ns, 100e3);
  EXPECT_EQ(p.kernels[1].launches, 2u);
  EXPECT_DOUBLE_EQ(p.kernels[1].total_ns, 11e3);
  EXPECT_DOUBLE_EQ(p.kernels[1].duration_ns, 5.5e3);  // the median of its two launches
  EXPECT_DOUBLE_EQ(p.kernel_ns_per_call, 111e3);
}

TEST(NcuProfile, NothingProfiledIsAnError) {
  // The window was never opened (an adapter that does not know purpose "profile"): only messages.
  const NcuTable t = parse_ncu_csv("==PROF== Connected to process 1 (/x)\n==PROF== Disconnected\n", "t");
  EXPECT_TRUE(t.rows.empty());
  ProfileContext c;
  EXPECT_THROW(summarize_profile(t, hopper(), c), std::invalid_argument);
}

TEST(NcuMetricTables, KnownArchitectures) {
  ASSERT_TRUE(metric_table_for("9.0"));
  EXPECT_FALSE(metric_table_for("9.0")->wgmma_instructions.empty());
  ASSERT_TRUE(metric_table_for("8.0"));
  EXPECT_TRUE(metric_table_for("8.0")->wgmma_instructions.empty());  // no wgmma before Hopper
  EXPECT_FALSE(metric_table_for("12.0"));
  EXPECT_EQ(known_metric_tables(), "sm_80, sm_86, sm_87, sm_89, sm_90");
  const auto list = metric_table_for("9.0")->metric_list();
  EXPECT_EQ(list.back(), "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\\.ratio");
  EXPECT_EQ(stall_reason("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"), "long_scoreboard");
  EXPECT_EQ(stall_reason("sm__throughput.avg.pct_of_peak_sustained_elapsed"), "");
}
