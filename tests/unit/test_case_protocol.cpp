// The case protocol (verify/case_protocol.hpp) on a real subject (the CPU GEMM in this process)
// and on one that lies, the resolved case and its JSON form, and resolution's overrides.
#include <gtest/gtest.h>

#include <cstring>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "measure/executor.hpp"
#include "runner/plan.hpp"
#include "runner/resolve.hpp"
#include "verify/case_protocol.hpp"
#include "verify/in_process_subject.hpp"

using namespace assay;
using verify::ResolvedCase;
using verify::Subject;

namespace {

ResolvedCase small_gemm() {
  ResolvedCase rc;
  rc.id = "g/cpu/f32/k=16,m=16,n=16";
  rc.bench = "g";
  rc.workload = "gemm";
  rc.backend = "cpu";
  rc.dtype = "f32";
  rc.params = {{"m", 16}, {"n", 16}, {"k", 16}};
  rc.check_params = {{"m", 12}, {"n", 8}, {"k", 4}};
  rc.method.warmup = {1, 0};
  rc.criterion = {5, 50, 0, 0.5, 2};
  rc.check_seed = 11;
  rc.measure_seed = 12;
  rc.device = "cpu";
  return rc;
}

// The CPU GEMM, with faults planted on request; counts what the protocol asked of it.
class PlantedSubject final : public Subject {
 public:
  explicit PlantedSubject(measure::Executor& ex) : real_(*find_backend("cpu"), ex) {}
  bool corrupt_check = false, corrupt_second_call = false, corrupt_last_output = false, drop_samples = false;
  bool return_cached = false, corrupt_profiled = false;
  int checks = 0, measures = 0, profiles = 0;
  std::uint64_t profiled_calls = 0;
  bool kept_output = false;
  Params checked_at;

  std::vector<HostTensor> check(const Problem& problem, const std::vector<HostTensor>& inputs,
                                std::uint64_t seed) override {
    ++checks;
    checked_at = problem.params();
    std::vector<HostTensor> outs = real_.check(problem, inputs, seed);
    if (corrupt_check) corrupt(outs.front());
    if (corrupt_second_call) corrupt(outs.back());
    return outs;
  }
  Measured measure(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t seed,
                   const measure::Method& method, const measure::Criterion& criterion,
                   const std::vector<HostTensor>* recheck_inputs) override {
    ++measures;
    kept_output = recheck_inputs != nullptr;
    Measured m = real_.measure(problem, inputs, seed, method, criterion, recheck_inputs);
    // A kernel that caches: the recheck call returns the output of the timed inputs.
    if (return_cached && m.last_output) {
      auto inst = find_backend("cpu")->instantiate(problem, inputs);
      inst->call(nullptr);
      m.last_output = inst->read_output();
    }
    if (corrupt_last_output && m.last_output) corrupt(*m.last_output);
    if (drop_samples) m.measurement.samples_ns.clear();
    return m;
  }
  // The host has no profiler window: the calls are made as the GPU subject makes them.
  HostTensor profile(const Problem& problem, const std::vector<HostTensor>& inputs, std::uint64_t,
                     std::uint64_t calls) override {
    ++profiles;
    profiled_calls = calls;
    auto inst = find_backend("cpu")->instantiate(problem, inputs);
    inst->poison_output();
    for (std::uint64_t i = 0; i < calls; ++i) inst->call(nullptr);
    HostTensor out = inst->read_output();
    if (corrupt_profiled) corrupt(out);
    return out;
  }
  std::string variant() const override { return real_.variant(); }

 private:
  static void corrupt(HostTensor& t) {
    float x;
    std::memcpy(&x, t.data.data(), sizeof x);
    x += 1.0f;
    std::memcpy(t.data.data(), &x, sizeof x);
  }
  verify::InProcessSubject real_;
};

struct Fixture {
  std::unique_ptr<measure::Executor> ex = measure::make_cpu_executor();
  PlantedSubject subject{*ex};
  CaseRecord rec;
  void run(const ResolvedCase& rc) {
    rec = verify::planned_record(rc);
    verify::run_case_protocol(rc, subject, ex->device(), rec);
  }
};

}  // namespace

TEST(CaseProtocol, ChecksMeasuresAndRechecksARealSubject) {
  Fixture f;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::ok) << f.rec.reason;
  ASSERT_TRUE(f.rec.check && f.rec.recheck);
  EXPECT_TRUE(f.rec.check->passed);
  EXPECT_EQ(f.rec.check->shape, "k=4,m=12,n=8");  // the check shape, not the measured one
  EXPECT_EQ(f.rec.check->seed, 11u);
  EXPECT_TRUE(f.subject.kept_output);
  // Two check calls, bitwise equal; the recheck on inputs the timed calls never saw.
  EXPECT_EQ(f.rec.check->calls, 2u);
  EXPECT_EQ(f.rec.check->bitwise_repeatable, std::optional<bool>(true));
  EXPECT_EQ(f.rec.recheck->inputs, "fresh");
  EXPECT_NE(f.rec.recheck->seed, 12u);
  ASSERT_TRUE(f.rec.measurement && f.rec.summary && f.rec.derived);
  EXPECT_GE(f.rec.measurement->samples_ns.size(), 5u);
  EXPECT_DOUBLE_EQ(f.rec.derived->flops, 2.0 * 16 * 16 * 16);
  EXPECT_FALSE(f.rec.variant.empty());
}

TEST(CaseProtocol, AWrongOutputIsNeverTimed) {
  Fixture f;
  f.subject.corrupt_check = true;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::check_failed);
  EXPECT_EQ(f.subject.measures, 0);
  EXPECT_FALSE(f.rec.measurement.has_value());
  EXPECT_FALSE(f.rec.summary.has_value());
  EXPECT_NE(f.rec.reason.find("check failed: fails=1/96"), std::string::npos) << f.rec.reason;
}

TEST(CaseProtocol, AnOutputThatChangesBetweenCallsFailsTheCheck) {
  Fixture f;
  f.subject.corrupt_second_call = true;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::check_failed);
  EXPECT_NE(f.rec.reason.find("call 2 of 2, the earlier passed"), std::string::npos) << f.rec.reason;
  EXPECT_EQ(f.subject.measures, 0);
}

TEST(CaseProtocol, AResultCachedFromTheTimedCallsFailsTheRecheck) {
  Fixture f;
  f.subject.return_cached = true;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::check_failed);
  EXPECT_NE(f.rec.reason.find("recheck on fresh inputs"), std::string::npos) << f.rec.reason;
  EXPECT_FALSE(f.rec.summary.has_value());
}

TEST(CaseProtocol, ARecheckFailureReportsNoTime) {
  Fixture f;
  f.subject.corrupt_last_output = true;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::check_failed);
  EXPECT_NE(f.rec.reason.find("recheck on fresh inputs after the timed calls failed"), std::string::npos) << f.rec.reason;
  EXPECT_TRUE(f.rec.measurement.has_value());  // what was measured stays on the record
  EXPECT_FALSE(f.rec.summary.has_value());
  EXPECT_FALSE(f.rec.derived.has_value());
}

TEST(CaseProtocol, RoundsCheckInTheFirstAndRecheckInTheLast) {
  Fixture first;
  ResolvedCase rc = small_gemm();
  rc.rounds = 2;
  first.run(rc);
  EXPECT_EQ(first.subject.checks, 1);
  EXPECT_FALSE(first.subject.kept_output);
  EXPECT_FALSE(first.rec.recheck.has_value());
  Fixture last;
  rc.round = 1;
  last.run(rc);
  EXPECT_EQ(last.subject.checks, 0);
  EXPECT_TRUE(last.subject.kept_output);
  EXPECT_TRUE(last.rec.recheck.has_value());
  EXPECT_EQ(last.rec.status, CaseStatus::ok);
}

TEST(CaseProtocol, CheckOnlyAndDisabledChecks) {
  Fixture only;
  ResolvedCase rc = small_gemm();
  rc.check_only = true;
  only.run(rc);
  EXPECT_EQ(only.rec.status, CaseStatus::ok);
  EXPECT_EQ(only.subject.measures, 0);
  Fixture disabled;
  rc.check.enabled = false;
  disabled.run(rc);
  EXPECT_EQ(disabled.rec.status, CaseStatus::skipped);
  EXPECT_EQ(disabled.subject.checks, 0);
  Fixture unchecked;
  rc.check_only = false;
  unchecked.run(rc);
  EXPECT_EQ(unchecked.rec.status, CaseStatus::ok);
  EXPECT_FALSE(unchecked.rec.check.has_value());
  EXPECT_FALSE(unchecked.subject.kept_output);
}

TEST(CaseProtocol, NoSampleKeptIsAnError) {
  Fixture f;
  f.subject.drop_samples = true;
  f.run(small_gemm());
  EXPECT_EQ(f.rec.status, CaseStatus::error);
  EXPECT_NE(f.rec.reason.find("no sample kept"), std::string::npos);
}

// The board's mean power only over a window long enough for NVML's energy counter (about 100 ms
// steps): 60 J over 60 ms is one step, not 1000 W; 1200 J over 2 s is 600 W. The energy stays.
TEST(CaseProtocol, MeanPowerOnlyOverALongEnoughWindow) {
  auto summarized = [](double joules, double window_s) {
    CaseRecord rec;
    rec.measurement = MeasurementRecord{};
    rec.measurement->samples_ns = {1000, 1010, 990};
    rec.measurement->energy_j = joules;
    rec.measurement->energy_window_s = window_s;
    verify::summarize_ok(rec, DerivedRecord{});
    return rec;
  };
  const CaseRecord short_window = summarized(60, 0.06);
  EXPECT_FALSE(short_window.derived->mean_power_w.has_value());
  EXPECT_DOUBLE_EQ(*short_window.measurement->energy_j, 60);
  EXPECT_DOUBLE_EQ(*summarized(1200, 2.0).derived->mean_power_w, 600);
  EXPECT_DOUBLE_EQ(*summarized(700, verify::kMinPowerWindowS).derived->mean_power_w, 700);
}

TEST(ResolvedCase, RoundTripsThroughJson) {
  ResolvedCase rc = small_gemm();
  rc.baseline = "cublas";
  rc.check = {true, false, {0.5, 0.25}, 7};
  rc.method = {measure::Mode::graph, {9, 0.125}, {0.5, 0.0625}, 150.5, 2, 32, measure::L2Flush::clean};
  rc.criterion = {3, 4000, 0.75, 0.002, 33};
  rc.check_seed = 0xfedcba9876543210ull;
  rc.round = 3;
  rc.rounds = 4;
  rc.check_only = true;
  rc.device = "1";
  rc.adapter_timeout_s = 61.5;
  const std::string text = verify::to_json_text(rc);
  const ResolvedCase back = verify::parse_resolved_case(text, "t");
  EXPECT_EQ(verify::to_json_text(back), text);
  EXPECT_EQ(back.method.mode, measure::Mode::graph);
  EXPECT_EQ(back.method.gap_us, 150.5);
  EXPECT_EQ(back.method.l2_flush, measure::L2Flush::clean);
  EXPECT_EQ(back.criterion.max_samples, 4000u);
  EXPECT_EQ(back.check_seed, 0xfedcba9876543210ull);
  EXPECT_EQ(back.check_params, rc.check_params);
  EXPECT_FALSE(back.check.recheck);
}

// A parent older than l2_flush sends no such field: its worker keeps the memset flush. An unknown
// flush is refused by name.
TEST(ResolvedCase, TheFlushIsOptionalAndChecked) {
  ResolvedCase rc = small_gemm();
  rc.method.l2_flush = measure::L2Flush::memset;
  std::string text = verify::to_json_text(rc);
  const std::string field = ",\"l2_flush\":\"memset\"";
  const auto at = text.find(field);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(verify::parse_resolved_case(text.substr(0, at) + text.substr(at + field.size()), "old").method.l2_flush,
            measure::L2Flush::memset);
  text.replace(at, field.size(), ",\"l2_flush\":\"dirty\"");
  try {
    verify::parse_resolved_case(text, "req");
    FAIL() << "an unknown flush was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("method.l2_flush"), std::string::npos) << e.what();
  }
}

TEST(ResolvedCase, AMalformedRequestNamesTheField) {
  std::string text = verify::to_json_text(small_gemm());
  const auto at = text.find("\"min_samples\"");
  text.replace(at, std::strlen("\"min_samples\""), "\"min_sample\"");
  try {
    verify::parse_resolved_case(text, "worker request");
    FAIL() << "accepted a request without criterion.min_samples";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("worker request: resolved case, field 'min_samples'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(verify::parse_resolved_case("{", "w"), InputError);
}

TEST(Resolve, AppliesEveryOverrideInOnePlace) {
  const auto s = suite::parse_suite(R"([defaults.measure]
mode = "cold"
min_samples = 40
max_samples = 400
min_time_s = 2
timeout_s = 8
warmup_min_s = 0.25
cooldown_s = 1
gap_us = 10
rounds = 2
adapter_timeout_s = 99
[[bench]]
name = "g"
workload = "gemm"
backends = ["cpu", "assay"]
dtype = "f16"
[bench.check]
shape = { m = 24 }
atol = 0.5
[bench.axes]
m = [64, 128]
n = "m"
k = 32
)",
                                    "r.toml");
  const auto planned = runner::plan_cases(s, std::nullopt);
  ASSERT_EQ(planned.size(), 4u);
  runner::RunOptions opt;
  opt.mode = "hot";
  opt.gap_us = 75;
  opt.l2_flush = "clean";
  opt.rounds = 4;
  EXPECT_EQ(runner::rounds_of(planned[0], opt), 4u);
  const auto rc = runner::resolve_case(planned[0], opt, runner::CaseRound{1, 4, 30}, "0");
  EXPECT_EQ(rc.method.mode, measure::Mode::hot);
  EXPECT_EQ(rc.method.gap_us, 75);
  EXPECT_EQ(rc.method.l2_flush, measure::L2Flush::clean);
  EXPECT_EQ(rc.method.warmup.min_s, 0.25);  // each round warms up and cools down afresh
  EXPECT_EQ(rc.method.cooldown_s, 1);
  EXPECT_EQ(rc.criterion.min_samples, 30u);  // the first round's 30 samples, over its share of 10
  EXPECT_EQ(rc.criterion.max_samples, 100u);
  EXPECT_EQ(rc.criterion.min_time_s, 0.5);
  EXPECT_EQ(rc.criterion.timeout_s, 2);
  EXPECT_EQ(rc.check.tolerance.atol, 0.5);
  EXPECT_EQ(rc.check_params, (Params{{"k", 32}, {"m", 24}, {"n", 24}}));  // n follows the check shape's m
  EXPECT_EQ(rc.adapter_timeout_s, 99);
  EXPECT_EQ(rc.round, 1u);
  EXPECT_EQ(rc.rounds, 4u);
  EXPECT_EQ(rc.device, "0");
  // Both backends of a point get the same inputs; another point gets others.
  const auto other_backend = runner::resolve_case(planned[1], opt, runner::CaseRound{}, "0");
  const auto other_point = runner::resolve_case(planned[2], opt, runner::CaseRound{}, "0");
  EXPECT_EQ(other_backend.check_seed, rc.check_seed);
  EXPECT_EQ(other_backend.measure_seed, rc.measure_seed);
  EXPECT_NE(other_point.measure_seed, rc.measure_seed);
  EXPECT_NE(rc.check_seed, rc.measure_seed);
  // Without overrides the suite's settings stand; checking alone runs one round.
  runner::RunOptions plain;
  const auto suite_rc = runner::resolve_case(planned[0], plain, runner::CaseRound{}, "cpu");
  EXPECT_EQ(suite_rc.method.mode, measure::Mode::cold);
  EXPECT_EQ(suite_rc.method.gap_us, 10);
  EXPECT_EQ(suite_rc.method.l2_flush, measure::L2Flush::memset);
  EXPECT_EQ(runner::rounds_of(planned[0], plain), 2u);
  plain.check_only = true;
  EXPECT_EQ(runner::rounds_of(planned[0], plain), 1u);
}

// assay profile: the check first, then the profiled calls, whose output is checked too; no
// measurement, no timing.
TEST(CaseProtocol, AProfiledCaseIsCheckedThenProfiledAndItsOutputChecked) {
  Fixture f;
  ResolvedCase rc = small_gemm();
  rc.profile_calls = 3;
  f.run(rc);
  EXPECT_EQ(f.rec.status, CaseStatus::ok) << f.rec.reason;
  EXPECT_EQ(f.subject.checks, 1);
  EXPECT_EQ(f.subject.measures, 0);
  EXPECT_EQ(f.subject.profiles, 1);
  EXPECT_EQ(f.subject.profiled_calls, 3u);
  ASSERT_TRUE(f.rec.recheck);
  EXPECT_TRUE(f.rec.recheck->passed);
  EXPECT_EQ(f.rec.recheck->inputs, "profiled");
  EXPECT_FALSE(f.rec.measurement);
  EXPECT_FALSE(f.rec.summary);
  ASSERT_TRUE(f.rec.derived);
  EXPECT_GT(f.rec.derived->flops, 0);
}

TEST(CaseProtocol, AWrongOutputOfTheProfiledCallsFailsTheCase) {
  Fixture f;
  ResolvedCase rc = small_gemm();
  rc.profile_calls = 1;
  f.subject.corrupt_profiled = true;
  f.run(rc);
  EXPECT_EQ(f.rec.status, CaseStatus::check_failed);
  EXPECT_NE(f.rec.reason.find("profiled calls"), std::string::npos) << f.rec.reason;
}
