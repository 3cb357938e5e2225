// Measuring a point's cases in rounds (src/runner/rounds.hpp): budgets shared out, the order
// reversed each round, and a case's rounds merged into one record.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "runner/rounds.hpp"

using namespace assay;
using namespace assay::runner;

namespace {
CaseRecord ok_round(std::vector<double> samples, double joules, const std::string& stop) {
  CaseRecord c;
  c.id = "b/x/f16/m=1";
  c.status = CaseStatus::ok;
  MeasurementRecord m;
  m.mode = "cold";
  m.samples_ns = samples;
  m.sm_clock_mhz.assign(samples.size(), 1980);
  m.warmup_calls = 3;
  m.dropped_throttled = 1;
  m.gap_us = 150;
  m.gap_overruns = 2;
  m.stop_reason = stop;
  m.elapsed_s = 0.5;
  m.energy_j = joules;
  m.energy_window_s = 0.4;
  m.energy_timed_s = 0.1;
  c.measurement = m;
  TelemetryRecord t;
  t.sm_clock_start_mhz = 1980;
  t.sm_clock_end_mhz = 1900 - static_cast<int>(samples.size());
  t.sm_clock_min_mhz = 1800 + static_cast<int>(samples.size());
  t.power_max_w = 600 + joules;
  t.polls = 10;
  t.clock_event_reasons = {stop == "timeout" ? "sw_power_cap" : "none"};
  c.telemetry = t;
  c.worker_wall_s = 1;
  return c;
}
}  // namespace

TEST(Rounds, CriterionSharesTheBudgetsOut) {
  measure::Criterion m;
  m.min_samples = 30;
  m.max_samples = 60000;
  m.min_time_s = 0.5;
  m.timeout_s = 8;
  const auto r = round_criterion(m, CaseRound{0, 4});
  EXPECT_EQ(r.min_samples, 8u);  // 8, 8, 7, 7: four rounds take the 30
  EXPECT_EQ(r.max_samples, 15000u);
  EXPECT_DOUBLE_EQ(r.min_time_s, 0.125);
  EXPECT_DOUBLE_EQ(r.timeout_s, 2);
  EXPECT_EQ(round_criterion(m, CaseRound{}).timeout_s, 8);
  // A later round keeps at least the first round's samples, within its own cap.
  EXPECT_EQ(round_criterion(m, CaseRound{1, 4, 900}).min_samples, 900u);
  EXPECT_EQ(round_criterion(m, CaseRound{1, 4, 90000}).min_samples, 15000u);
  EXPECT_EQ(round_criterion(m, CaseRound{1, 4, 2}).min_samples, 8u);
  EXPECT_EQ(round_criterion(m, CaseRound{3, 4}).min_samples, 7u);
  // The rounds together keep at most max_samples (each share rounded up had let 4 rounds of a
  // case with max_samples 5 keep 8, and 6 rounds of 10^6 pass the results reader's cap).
  m.min_samples = 1;
  m.max_samples = 5;
  std::uint64_t total = 0;
  for (std::uint64_t i = 0; i < 4; ++i) total += round_criterion(m, CaseRound{i, 4}).max_samples;
  EXPECT_EQ(total, 5u);
  m.min_samples = m.max_samples = 3;
  const auto few = round_criterion(m, CaseRound{0, 4});
  EXPECT_EQ(few.min_samples, 1u);
  EXPECT_EQ(few.max_samples, 1u);
}

TEST(Rounds, OrderReversesEachRound) {
  EXPECT_EQ(round_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(round_order(3, 1), (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(round_order(3, 2), (std::vector<std::size_t>{0, 1, 2}));
  // Two backends over four rounds: A B B A A B B A, each in every position equally often.
  std::vector<std::size_t> seq;
  for (std::uint64_t r = 0; r < 4; ++r)
    for (auto i : round_order(2, r)) seq.push_back(i);
  EXPECT_EQ(seq, (std::vector<std::size_t>{0, 1, 1, 0, 0, 1, 1, 0}));
}

TEST(Rounds, MergeConcatenatesTheRoundsInOrder) {
  auto a = ok_round({10, 11, 12}, 100, "converged");
  a.check = CheckRecord{};
  a.check->shape = "first";
  auto b = ok_round({20, 21}, 50, "timeout");
  b.recheck = CheckRecord{};
  b.recheck->shape = "last";
  // The last round's own figures are of its samples alone: the merge drops them.
  b.summary = stats::Summary{};
  b.derived = DerivedRecord{};
  b.speedup_vs_baseline = 1.5;
  const CaseRecord m = merge_rounds({a, b});
  EXPECT_EQ(m.status, CaseStatus::ok);
  ASSERT_TRUE(m.measurement);
  EXPECT_EQ(m.measurement->samples_ns, (std::vector<double>{10, 11, 12, 20, 21}));
  EXPECT_EQ(m.measurement->sm_clock_mhz.size(), 5u);
  EXPECT_EQ(m.measurement->round_samples, (std::vector<std::uint64_t>{3, 2}));
  EXPECT_EQ(m.measurement->warmup_calls, 6u);
  EXPECT_EQ(m.measurement->dropped_throttled, 2u);
  EXPECT_EQ(m.measurement->gap_us, 150.0);
  EXPECT_EQ(m.measurement->gap_overruns, 4u);
  EXPECT_EQ(m.measurement->stop_reason, "converged+timeout");
  EXPECT_DOUBLE_EQ(m.measurement->elapsed_s, 1.0);
  ASSERT_TRUE(m.measurement->energy_j);
  EXPECT_DOUBLE_EQ(*m.measurement->energy_j, 150);
  EXPECT_DOUBLE_EQ(m.measurement->energy_window_s, 0.8);
  EXPECT_DOUBLE_EQ(m.measurement->energy_timed_s, 0.2);
  ASSERT_TRUE(m.check && m.recheck);
  EXPECT_EQ(m.check->shape, "first");
  EXPECT_EQ(m.recheck->shape, "last");
  EXPECT_FALSE(m.summary);  // the caller summarises the merged samples
  EXPECT_FALSE(m.derived);
  EXPECT_FALSE(m.speedup_vs_baseline);
  EXPECT_DOUBLE_EQ(m.worker_wall_s, 2);
  ASSERT_TRUE(m.telemetry);
  EXPECT_EQ(m.telemetry->sm_clock_start_mhz, 1980);
  EXPECT_EQ(m.telemetry->sm_clock_end_mhz, 1898);  // the last round's
  EXPECT_EQ(m.telemetry->sm_clock_min_mhz, 1802);  // the least of the rounds'
  EXPECT_DOUBLE_EQ(m.telemetry->power_max_w, 700);
  EXPECT_EQ(m.telemetry->polls, 20u);
  EXPECT_EQ(m.telemetry->clock_event_reasons, (std::vector<std::string>{"none", "sw_power_cap"}));
}

TEST(Rounds, MergeDropsWhatNotEveryRoundHas) {
  auto a = ok_round({10, 11}, 100, "converged");
  auto b = ok_round({20, 21}, 50, "converged");
  b.measurement->energy_j.reset();
  b.measurement->sm_clock_mhz.clear();
  const CaseRecord m = merge_rounds({a, b});
  EXPECT_FALSE(m.measurement->energy_j);  // a sum with a hole would understate the window
  EXPECT_EQ(m.measurement->energy_window_s, 0);
  EXPECT_TRUE(m.measurement->sm_clock_mhz.empty());  // clocks must stay aligned with samples
  EXPECT_EQ(m.measurement->stop_reason, "converged");
}

TEST(Rounds, AFailedRoundGivesTheStatus) {
  auto a = ok_round({10, 11}, 100, "converged");
  a.check = CheckRecord{};
  CaseRecord b = ok_round({20}, 50, "converged");
  b.status = CaseStatus::check_failed;
  b.reason = "recheck of the last timed call failed";
  const CaseRecord m = merge_rounds({a, b});
  EXPECT_EQ(m.status, CaseStatus::check_failed);
  EXPECT_EQ(m.reason, b.reason);
  EXPECT_TRUE(m.check);
  EXPECT_EQ(m.measurement->round_samples, (std::vector<std::uint64_t>{2, 1}));
  // A round with no sample kept (every one throttled) still counts its drops and its time.
  CaseRecord empty = ok_round({}, 50, "timeout");
  empty.status = CaseStatus::error;
  empty.reason = "no sample kept: every sample was taken while the GPU was throttled";
  empty.measurement->dropped_throttled = 40;
  const CaseRecord e = merge_rounds({a, empty});
  EXPECT_EQ(e.status, CaseStatus::error);
  EXPECT_EQ(e.measurement->round_samples, (std::vector<std::uint64_t>{2, 0}));
  EXPECT_EQ(e.measurement->dropped_throttled, 41u);
  EXPECT_DOUBLE_EQ(e.measurement->elapsed_s, 1.0);
  // A round skipped after another ran leaves the case half measured: an error, not a skip.
  CaseRecord skipped;
  skipped.status = CaseStatus::skipped;
  skipped.reason = "cuBLAS is not available";
  const CaseRecord s = merge_rounds({a, skipped});
  EXPECT_EQ(s.status, CaseStatus::error);
  EXPECT_EQ(s.reason, "round 2 was skipped after earlier rounds ran: cuBLAS is not available");
  EXPECT_EQ(merge_rounds({skipped}).status, CaseStatus::skipped);
  CaseRecord crashed;
  crashed.status = CaseStatus::crashed;
  crashed.reason = "signal 6";
  const CaseRecord c = merge_rounds({crashed});
  EXPECT_EQ(c.status, CaseStatus::crashed);
  EXPECT_FALSE(c.measurement);
  EXPECT_THROW(merge_rounds({}), InternalError);
}
