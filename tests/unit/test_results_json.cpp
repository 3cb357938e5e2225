#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/results.hpp"

using namespace assay;

namespace {
ResultsDocument sample_doc() {
  ResultsDocument d;
  d.run.assay_version = "0.1.0";
  d.run.git_commit = "abc";
  d.run.command_line = {"assay", "run", "x.toml"};
  d.run.device.kind = "cuda";
  d.run.device.name = "NVIDIA H100 80GB HBM3";
  d.run.device.l2_bytes = 52428800;
  d.run.libraries["cublas"] = "13.0.0";
  d.run.environment["seed"] = "1";
  CaseRecord c;
  c.id = "b/assay/f16/k=1,m=2,n=3";
  c.bench = "b";
  c.workload = "gemm";
  c.backend = "assay";
  c.dtype = "f16";
  c.params = {{"m", 2}, {"n", 3}, {"k", 1}};
  c.status = CaseStatus::ok;
  CheckRecord chk;
  chk.passed = true;
  chk.fails = 0;
  chk.checked = 6;
  chk.max_abs = 1e-3;
  chk.rel_l2 = 2.5e-4;
  c.check = chk;
  MeasurementRecord m;
  m.mode = "cold";
  m.samples_ns = {1000.5, 1001, 999};
  m.sm_clock_mhz = {1980, 1975, 1980};
  m.stop_reason = "converged";
  c.measurement = m;
  c.summary = stats::summarize(m.samples_ns);
  c.speedup_vs_baseline = 1.25;
  c.cycles_speedup_vs_baseline = 1.5;
  d.cases.push_back(c);
  CaseRecord failed = c;
  failed.id = "b/assay/f16/k=1,m=2,n=4";  // a document holds each case once
  failed.params["n"] = 4;
  failed.status = CaseStatus::check_failed;
  failed.summary.reset();
  failed.speedup_vs_baseline.reset();
  failed.cycles_speedup_vs_baseline.reset();  // absent, as in documents written before it existed
  failed.check->rel_l2 = std::numeric_limits<double>::infinity();  // NaN in the output
  d.cases.push_back(failed);
  return d;
}
std::string error_of(const std::string& text) {
  try {
    parse_results_json(text, "r.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(ResultsJson, RoundTripKeepsEverything) {
  const ResultsDocument d = sample_doc();
  const std::string text = to_json_text(d);
  const ResultsDocument back = parse_results_json(text, "r.json");
  EXPECT_EQ(to_json_text(back), text);
  ASSERT_EQ(back.cases.size(), 2u);
  EXPECT_EQ(back.cases[0].measurement->samples_ns, (std::vector<double>{1000.5, 1001, 999}));
  EXPECT_EQ(back.cases[0].summary->median, 1000.5);
  EXPECT_EQ(back.cases[0].speedup_vs_baseline, 1.25);
  EXPECT_EQ(back.cases[0].cycles_speedup_vs_baseline, 1.5);
  EXPECT_FALSE(back.cases[1].cycles_speedup_vs_baseline.has_value());
  EXPECT_EQ(back.cases[0].params.at("n"), 3);
  EXPECT_EQ(back.cases[1].status, CaseStatus::check_failed);
  EXPECT_FALSE(back.cases[1].summary.has_value());
  EXPECT_TRUE(std::isinf(back.cases[1].check->rel_l2));
  EXPECT_EQ(back.run.device.l2_bytes, 52428800u);
}

TEST(ResultsJson, SchemaIsCheckedFirst) {
  std::string text = to_json_text(sample_doc());
  const auto pos = text.find("\"schema_version\": 1");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 19, "\"schema_version\": 7");
  EXPECT_NE(error_of(text).find("r.json: field '$.schema_version' is 7; this assay reads version 1"),
            std::string::npos)
      << error_of(text);
}

TEST(ResultsJson, ForeignAndTruncatedDocuments) {
  EXPECT_NE(error_of("{\"hello\": 1}").find("field '$.schema' missing"), std::string::npos);
  EXPECT_NE(error_of("{\"schema\": \"other\", \"schema_version\": 1}").find("not an assay results document"),
            std::string::npos);
  const std::string text = to_json_text(sample_doc());
  EXPECT_NE(error_of(text.substr(0, text.size() / 2)).find("r.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1,2]").find("expected an object"), std::string::npos);
}

// Samples one past a case's bound get the field's own message; an array past twice that is
// refused while parsing, before it is built whole (the hostile corpus's ten million samples).
TEST(ResultsJson, OversizedArraysAreRefusedWhileParsing) {
  const std::string text = to_json_text(sample_doc());
  const std::string key = "\"samples_ns\": [";
  const auto at = text.find(key) + key.size();
  std::string extra;
  for (int i = 0; i < 1000000; ++i) extra += "1000.0,";  // a case holds at most 1000000
  EXPECT_NE(error_of(text.substr(0, at) + extra + text.substr(at)).find("field '$.cases[0].measurement.samples_ns' holds"),
            std::string::npos);
  extra += extra;
  EXPECT_NE(error_of(text.substr(0, at) + extra + text.substr(at)).find("r.json: field 'samples_ns' holds more than 2000000 values"),
            std::string::npos);
}

TEST(ResultsJson, WrongFieldTypeNamesThePath) {
  std::string text = to_json_text(sample_doc());
  const auto pos = text.find("\"status\": \"ok\"");
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, 14, "\"status\": \"fine\"");
  EXPECT_NE(error_of(text).find("field '$.cases[0].status' must be one of"), std::string::npos) << error_of(text);
}

// One entry per case id: a repeated case would count as a second session in a comparison.
TEST(ResultsJson, ACaseIdTwiceIsRefused) {
  ResultsDocument d = sample_doc();
  d.cases.push_back(d.cases.front());
  const std::string e = error_of(to_json_text(d));
  EXPECT_NE(e.find("field '$.cases[2].id' 'b/assay/f16/k=1,m=2,n=3' is also $.cases[0]'s"), std::string::npos) << e;
}

// A per-sample SM clock is in [0, 100000] MHz (0: no tick seen); a huge one made cycles infinite.
TEST(ResultsJson, SmClocksOutOfRangeAreRefused) {
  for (double mhz : {-5.0, 1e308}) {
    ResultsDocument d = sample_doc();
    d.cases.front().measurement->sm_clock_mhz[1] = mhz;
    const std::string e = error_of(to_json_text(d));
    EXPECT_NE(e.find("field '$.cases[0].measurement.sm_clock_mhz[1]' is "), std::string::npos) << e;
  }
  ResultsDocument d = sample_doc();
  d.cases.front().measurement->sm_clock_mhz[1] = 0;
  EXPECT_EQ(error_of(to_json_text(d)), "");
}

TEST(ResultsJson, EnergyAndBatchFieldsRoundTripAndMayBeAbsent) {
  ResultsDocument d = sample_doc();
  MeasurementRecord& m = *d.cases[0].measurement;
  m.energy_j = 12.5;
  m.energy_window_s = 0.025;
  m.energy_timed_s = 0.02;
  DerivedRecord der;
  der.flops = 1e12;
  der.mean_power_w = 12.5 / 0.025;
  d.cases[0].derived = der;
  const std::string text = to_json_text(d);
  const ResultsDocument back = parse_results_json(text, "r.json");
  EXPECT_EQ(to_json_text(back), text);
  EXPECT_EQ(back.cases[0].measurement->energy_j, 12.5);
  EXPECT_EQ(back.cases[0].measurement->energy_timed_s, 0.02);
  EXPECT_DOUBLE_EQ(*back.cases[0].derived->mean_power_w, 500.0);
  EXPECT_TRUE(back.cases[0].measurement->round_samples.empty());
  EXPECT_EQ(text.find("round_samples"), std::string::npos);  // written only for a case in rounds
  m.round_samples = {3, 2};
  const ResultsDocument rounds = parse_results_json(to_json_text(d), "r.json");
  EXPECT_EQ(rounds.cases[0].measurement->round_samples, (std::vector<std::uint64_t>{3, 2}));
  // The sample gap: written only when one was kept, and read back with its overruns.
  EXPECT_EQ(text.find("gap_us"), std::string::npos);
  m.gap_us = 150;
  m.gap_overruns = 4;
  const ResultsDocument gapped = parse_results_json(to_json_text(d), "r.json");
  EXPECT_EQ(gapped.cases[0].measurement->gap_us, 150.0);
  EXPECT_EQ(gapped.cases[0].measurement->gap_overruns, 4u);
  // The flush: written only for a clean one; any other value is refused by name.
  EXPECT_EQ(text.find("\"l2_flush\""), std::string::npos);
  m.l2_flush = "clean";
  EXPECT_EQ(parse_results_json(to_json_text(d), "r.json").cases[0].measurement->l2_flush, "clean");
  m.l2_flush = "sometimes";
  try {
    parse_results_json(to_json_text(d), "r.json");
    ADD_FAILURE() << "an unknown flush was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("l2_flush"), std::string::npos) << e.what();
  }
  m.l2_flush.clear();
  // Documents written before these fields existed still read; the fields are then none.
  auto j = nlohmann::json::parse(text);
  for (const char* k : {"energy_j", "energy_window_s", "energy_timed_s"}) j["cases"][0]["measurement"].erase(k);
  j["cases"][0]["derived"].erase("mean_power_w");
  for (const char* k : {"median_ci_batch_rel_halfwidth", "autocorrelation_lag1"}) j["cases"][0]["summary_ns"].erase(k);
  const ResultsDocument old = parse_results_json(j.dump(), "old.json");
  EXPECT_FALSE(old.cases[0].measurement->energy_j.has_value());
  EXPECT_FALSE(old.cases[0].derived->mean_power_w.has_value());
  EXPECT_FALSE(old.cases[0].summary->autocorrelation_lag1.has_value());
}
