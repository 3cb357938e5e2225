// Matching cases between runs, the gate, and the CI renderings of a comparison.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <tuple>

#include "compare_test_docs.hpp"
#include "core/error.hpp"
#include "compare_test_samples.hpp"
#include "report/compare_outputs.hpp"
#include "compare/comparison.hpp"
#include "compare/gate.hpp"
#include "store/case_key.hpp"

using namespace assay;
using namespace assay::report;
using namespace assay::compare;
using assay::stats::Verdict;
using assay::test::doc_on;
using assay::test::kH100;
using assay::test::ok_case;

namespace {
std::vector<double> noisy(std::uint64_t seed, double median, std::size_t n = 40) {
  return assay::test::SampleSource(seed).lognormal(n, median, 0.01);
}

store::RunSet set_of(const std::string& label, std::vector<ResultsDocument> docs) {
  return {label, "test " + label, std::move(docs)};
}

const CaseComparison& find_case(const Comparison& c, const std::string& id) {
  for (const auto& cc : c.cases)
    if (cc.case_id == id) return cc;
  throw std::runtime_error("no case " + id);
}

// What a history of ten quiet sessions of every case of `set` gives: a between-session spread of
// 0.2%, so that single-session verdicts count (without it they are marked and not gated).
CompareOptions with_quiet_history(const store::RunSet& set) {
  CompareOptions o;
  for (const auto& doc : set.sessions)
    for (const auto& c : doc.cases) o.session_spreads[store::case_key(doc.run, c).text()] = {0.002, 10};
  o.history_origin = "test-history.db";
  return o;
}

// The case with every sample's SM clock probe at `mhz`.
CaseRecord clocked(CaseRecord c, double mhz) {
  c.measurement->sm_clock_mhz.assign(c.measurement->samples_ns.size(), mhz);
  return c;
}

// Base and candidate of four cases: 5% slower, 5% faster, unchanged, and one only in each.
struct Fixture {
  store::RunSet base = set_of("main", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 100000)),
                                                       ok_case("gemm", "assay", 2048, noisy(2, 800000)),
                                                       ok_case("gemm", "cublas", 1024, noisy(3, 90000)),
                                                       ok_case("gemm", "cublas", 4096, noisy(4, 5e6))})});
  store::RunSet cand = set_of("pr", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(11, 105000)),
                                                     ok_case("gemm", "assay", 2048, noisy(12, 760000)),
                                                     ok_case("gemm", "cublas", 1024, noisy(13, 90000)),
                                                     ok_case("gemm", "cublas", 512, noisy(14, 20000))})});
};
}  // namespace

TEST(Comparison, VerdictsNewGoneAndGeomean) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  ASSERT_EQ(c.cases.size(), 5u);
  EXPECT_EQ(find_case(c, "gemm/assay/f16/k=1024,m=1024,n=1024").verdict, Verdict::slower);
  EXPECT_EQ(find_case(c, "gemm/assay/f16/k=2048,m=2048,n=2048").verdict, Verdict::faster);
  const Verdict same = find_case(c, "gemm/cublas/f16/k=1024,m=1024,n=1024").verdict;
  EXPECT_TRUE(same == Verdict::same || same == Verdict::ambiguous);
  EXPECT_EQ(find_case(c, "gemm/cublas/f16/k=512,m=512,n=512").verdict, Verdict::new_case);
  const CaseComparison& gone = find_case(c, "gemm/cublas/f16/k=4096,m=4096,n=4096");
  EXPECT_EQ(gone.verdict, Verdict::gone);
  EXPECT_EQ(c.cases.back().case_id, gone.case_id);  // GONE cases come last
  EXPECT_EQ(c.geomean_cases, 3u);
  double logs = 0;
  for (const auto& cc : c.cases)
    if (cc.stats) logs += std::log(cc.stats->ratio);
  EXPECT_NEAR(*c.geomean_ratio, std::exp(logs / 3), 1e-12);
  EXPECT_NEAR(*c.geomean_ratio, std::cbrt(1.05 * 0.95 * 1.0), 0.01);
  EXPECT_TRUE(c.notes.empty());
}

// A case that failed in one session of a side has no measurement there, so no mode in its key:
// it is still one case, one row (before: a second row, and a false GONE when on the base side).
TEST(Comparison, ACaseFailedInOneSessionIsStillOneCase) {
  const auto sessions = [](bool fail_second, std::uint64_t seed) {
    std::vector<ResultsDocument> docs;
    for (int i = 0; i < 3; ++i) {
      const bool failed = fail_second && i == 1;
      docs.push_back(doc_on(kH100, {failed ? assay::test::failed_case("gemm", "assay", 1024)
                                           : ok_case("gemm", "assay", 1024, noisy(seed + i, 100000)),
                                    ok_case("gemm", "cublas", 1024, noisy(seed + 10 + i, 90000))}));
    }
    return docs;
  };
  const Comparison base_failed = compare_runs(set_of("main", sessions(true, 1)), set_of("pr", sessions(false, 21)), {});
  ASSERT_EQ(base_failed.cases.size(), 2u);
  const CaseComparison& a = find_case(base_failed, "gemm/assay/f16/k=1024,m=1024,n=1024");
  ASSERT_TRUE(a.stats);  // timed on the base's two measured sessions
  EXPECT_EQ(a.stats->base_sessions, 2u);
  const Comparison cand_failed = compare_runs(set_of("main", sessions(false, 1)), set_of("pr", sessions(true, 21)), {});
  ASSERT_EQ(cand_failed.cases.size(), 2u);
  EXPECT_EQ(find_case(cand_failed, "gemm/assay/f16/k=1024,m=1024,n=1024").verdict, Verdict::failed);
}

TEST(Comparison, NotesCasesMeasuredWithDifferentSampleGaps) {
  Fixture f;
  for (auto& doc : f.cand.sessions)
    for (auto& c : doc.cases)
      if (c.backend == "assay") c.measurement->gap_us = 150;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  ASSERT_EQ(c.notes.size(), 1u);
  // The two assay cases are in both runs; cuBLAS's matched case has no gap on either side.
  EXPECT_NE(c.notes[0].find("2 matched cases were measured with different sample gaps (base 0 us, candidate 150 us"),
            std::string::npos)
      << c.notes[0];
  Fixture same;
  for (auto* set : {&same.base, &same.cand})
    for (auto& doc : set->sessions)
      for (auto& c : doc.cases) c.measurement->gap_us = 150;
  EXPECT_TRUE(compare_runs(same.base, same.cand, with_quiet_history(same.cand)).notes.empty());
}

// A clean flush makes another series: its cases match only cases measured the same way.
TEST(Comparison, CasesOfACleanFlushAreAnotherSeries) {
  Fixture f;
  for (auto* set : {&f.base, &f.cand})
    for (auto& doc : set->sessions)
      for (auto& c : doc.cases) {
        c.measurement->mode = "cold";
        if (set == &f.cand && c.backend == "assay") c.measurement->l2_flush = "clean";
      }
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  std::size_t new_assay = 0, gone_assay = 0, other_assay = 0;
  for (const auto& cc : c.cases) {
    if (cc.key.find("/assay/") == std::string::npos) continue;
    if (cc.verdict == Verdict::new_case) {
      ++new_assay;
      EXPECT_NE(cc.key.find("[cold+clean]"), std::string::npos) << cc.key;
    } else if (cc.verdict == Verdict::gone) {
      ++gone_assay;
      EXPECT_NE(cc.key.find("[cold]"), std::string::npos) << cc.key;
    } else {
      ++other_assay;
    }
  }
  EXPECT_EQ(new_assay, 2u);
  EXPECT_EQ(gone_assay, 2u);
  EXPECT_EQ(other_assay, 0u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("2 cases are NEW on one side and GONE on the other only because one side flushed L2 clean"),
            std::string::npos)
      << c.notes[0];
  // The other direction (clean on the base side) is counted too.
  const Comparison back = compare_runs(f.cand, f.base, with_quiet_history(f.base));
  ASSERT_EQ(back.notes.size(), 1u);
  EXPECT_NE(back.notes[0].find("2 cases are NEW"), std::string::npos) << back.notes[0];
}

// The key's text is the history's and the comparison's identity; its mode is read back from it
// (the flush note above), with and without the GPU, and a key without a mode stays as it is.
TEST(CaseKey, TheModeIsReadBackFromTheText) {
  const store::CaseKey k{"gemm", "assay", "f16", "k=64,m=64,n=64", store::key_mode("cold", "clean"), "NVIDIA H100"};
  EXPECT_EQ(k.text(), "gemm/assay/f16/k=64,m=64,n=64 [cold+clean] @ NVIDIA H100");
  EXPECT_EQ(store::mode_in_key_text(k.text()), "cold+clean");
  EXPECT_EQ(store::mode_in_key_text(k.text_without_gpu()), "cold+clean");
  EXPECT_EQ(store::key_text_without_mode(k.text()), "gemm/assay/f16/k=64,m=64,n=64 [] @ NVIDIA H100");
  EXPECT_EQ(store::key_mode("cold", ""), "cold");
  EXPECT_EQ(store::key_mode("hot", "clean"), "hot+clean");
  EXPECT_EQ(store::mode_in_key_text("no mode here"), "");
  EXPECT_EQ(store::key_text_without_mode("no mode here"), "no mode here");
  // A case without a measurement has an empty mode; an adapter's mode is its own; brackets in the
  // GPU's name come after the mode's.
  EXPECT_EQ(store::mode_in_key_text("attention/assay/f16/s=64 [] @ H100"), "");
  EXPECT_EQ(store::mode_in_key_text("gemm/torch/f16/k=64 [adapter:cold] @ H100"), "adapter:cold");
  EXPECT_EQ(store::mode_in_key_text("gemm/assay/f16/k=64 [hot] @ GPU [MIG 1g.10gb]"), "hot");
  EXPECT_EQ(store::key_text_without_mode("gemm/assay/f16/k=64 [hot] @ GPU [MIG 1g.10gb]"),
            "gemm/assay/f16/k=64 [] @ GPU [MIG 1g.10gb]");
}

TEST(Comparison, DeterministicAcrossCalls) {
  Fixture f;
  const Comparison a = compare_runs(f.base, f.cand, {}), b = compare_runs(f.base, f.cand, {});
  for (std::size_t i = 0; i < a.cases.size(); ++i) {
    if (!a.cases[i].stats) continue;
    EXPECT_EQ(a.cases[i].stats->ratio_ci.lo, b.cases[i].stats->ratio_ci.lo);
    EXPECT_EQ(a.cases[i].why, b.cases[i].why);
  }
}

TEST(Comparison, ThroughputMetricKeepsTheDirection) {
  Fixture f;
  CompareOptions o;
  o.metric = Metric::tflops;
  const Comparison c = compare_runs(f.base, f.cand, o);
  const CaseComparison& slower = find_case(c, "gemm/assay/f16/k=1024,m=1024,n=1024");
  EXPECT_EQ(slower.verdict, Verdict::slower);
  EXPECT_LT(slower.stats->ratio, 1.0);  // fewer TFLOP/s
  EXPECT_EQ(find_case(c, "gemm/assay/f16/k=2048,m=2048,n=2048").verdict, Verdict::faster);
}

// --metric cycles: time x the probed SM clock. A candidate that ran 5% longer at a 5% lower clock
// did the same number of cycles: time says SLOWER, cycles SAME. A record without a clock for every
// sample (a CPU case, a sampler without the probe) gives cycles no statistics.
TEST(Comparison, CyclesMetricSeesThroughTheClock) {
  const store::RunSet base = set_of("a", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 1024, noisy(1, 100000)), 1900),
                                                         ok_case("gemm", "cublas", 1024, noisy(2, 90000))})});
  const store::RunSet cand = set_of("b", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 1024, noisy(3, 100000 * 1900.0 / 1805)), 1805),
                                                         ok_case("gemm", "cublas", 1024, noisy(4, 90000))})});
  const std::string id = "gemm/assay/f16/k=1024,m=1024,n=1024";
  const Comparison t = compare_runs(base, cand, {});
  const CaseComparison& by_time = find_case(t, id);
  ASSERT_TRUE(by_time.stats);
  EXPECT_GT(by_time.stats->ratio, 1.04);
  CompareOptions o;
  o.metric = Metric::cycles;
  const Comparison c = compare_runs(base, cand, o);
  const CaseComparison& by_cycles = find_case(c, id);
  ASSERT_TRUE(by_cycles.stats);
  EXPECT_NEAR(by_cycles.stats->ratio, 1.0, 0.01);
  EXPECT_EQ(by_cycles.verdict, Verdict::same);
  EXPECT_FALSE(find_case(c, "gemm/cublas/f16/k=1024,m=1024,n=1024").stats);  // no clocks recorded
  EXPECT_EQ(parse_metric("cycles"), Metric::cycles);
  EXPECT_EQ(metric_value_text(190000, Metric::cycles), "190.0 k cycles");
}

// --also-cycles: the candidate does 3% more work, but its clock ran 3% higher, so its time did not
// change; time says SAME, cycles SLOWER, and the combined verdict is SLOWER (each at alpha / 2).
// A case without a clock probe keeps its time verdict; unchanged work stays SAME.
TEST(Comparison, AlsoCyclesSeesMoreWorkBehindAHigherClock) {
  const store::RunSet base =
      set_of("a", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 1024, noisy(1, 100000)), 1800),
                                  clocked(ok_case("gemm", "assay", 2048, noisy(2, 700000)), 1800),
                                  ok_case("gemm", "cublas", 1024, noisy(3, 90000))})});
  const store::RunSet cand =
      set_of("b", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 1024, noisy(4, 100000 * 1.03 * 1800 / 1854)), 1854),
                                  clocked(ok_case("gemm", "assay", 2048, noisy(5, 700000)), 1800),
                                  ok_case("gemm", "cublas", 1024, noisy(6, 90000))})});
  CompareOptions o = with_quiet_history(base);
  EXPECT_EQ(find_case(compare_runs(base, cand, o), "gemm/assay/f16/k=1024,m=1024,n=1024").verdict, Verdict::same);
  o.also_cycles = true;
  const Comparison c = compare_runs(base, cand, o);
  EXPECT_EQ(c.metric, Metric::time);
  const CaseComparison& more_work = find_case(c, "gemm/assay/f16/k=1024,m=1024,n=1024");
  EXPECT_EQ(more_work.verdict, Verdict::slower);
  EXPECT_NEAR(more_work.stats->ratio, 1.0, 0.01);  // the statistics shown are time's
  EXPECT_NE(more_work.why.find("cycles SLOWER"), std::string::npos) << more_work.why;
  EXPECT_NE(more_work.why.find("SLOWER by cycles"), std::string::npos) << more_work.why;
  EXPECT_EQ(find_case(c, "gemm/assay/f16/k=2048,m=2048,n=2048").verdict, Verdict::same);
  EXPECT_EQ(find_case(c, "gemm/cublas/f16/k=1024,m=1024,n=1024").verdict, Verdict::same);  // on time alone
  bool noted = false;
  for (const auto& n : c.notes) noted |= n.find("--also-cycles") != std::string::npos && n.find("1 case without") != std::string::npos;
  EXPECT_TRUE(noted);
  o.metric = Metric::cycles;
  EXPECT_THROW(compare_runs(base, cand, o), InputError);
}

// --also-cycles on one session a side (history noise): a candidate session 7% slower at a clock 7%
// lower (the same cycles) is SLOWER by time alone, marked and not gated, as an A/A session on the
// H100 was (docs/compare.md); 7% more work at the same clock is SLOWER on both and gated.
TEST(Comparison, AlsoCyclesMarksATimeVerdictTheClockExplains) {
  const store::RunSet base =
      set_of("a", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 4096, noisy(1, 180000)), 1800),
                                  clocked(ok_case("gemm", "cublas", 4096, noisy(2, 180000)), 1800)})});
  const store::RunSet cand =
      set_of("b", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 4096, noisy(3, 180000 * 1.07)), 1800 / 1.07),
                                  clocked(ok_case("gemm", "cublas", 4096, noisy(4, 180000 * 1.07)), 1800)})});
  CompareOptions o = with_quiet_history(base);
  o.also_cycles = true;
  const Comparison c = compare_runs(base, cand, o);
  const CaseComparison& clock = find_case(c, "gemm/assay/f16/k=4096,m=4096,n=4096");
  const CaseComparison& work = find_case(c, "gemm/cublas/f16/k=4096,m=4096,n=4096");
  EXPECT_EQ(clock.verdict, Verdict::slower);
  EXPECT_FALSE(clock.drift_covered);
  EXPECT_EQ(verdict_label(clock), "SLOWER?");
  EXPECT_NE(clock.why.find("by time alone (the clock differed)"), std::string::npos) << clock.why;
  EXPECT_EQ(work.verdict, Verdict::slower);
  EXPECT_TRUE(work.drift_covered);
  const GateResult gate = apply_gate(c, {{Verdict::slower}, std::nullopt});
  EXPECT_FALSE(gate.passed);
  ASSERT_EQ(gate.reasons.size(), 1u);
  EXPECT_NE(gate.reasons.front().find("1 case(s) SLOWER"), std::string::npos) << gate.reasons.front();
  bool noted = false;
  for (const auto& n : c.notes) noted |= n.find("1 FASTER/SLOWER verdict (marked ?) by time alone") != std::string::npos;
  EXPECT_TRUE(noted);
  // A noisier case (1% between sessions): time 7% slower, cycles 4% with a CI that reaches 7%;
  // cycles AMBIGUOUS does not show that the clock explains time, so SLOWER stands, gated.
  const store::RunSet noisy_cand =
      set_of("b", {doc_on(kH100, {clocked(ok_case("gemm", "assay", 4096, noisy(3, 180000 * 1.07)), 1800 * 1.04 / 1.07)})});
  o.session_spreads[clock.key] = {0.01, 10};
  const Comparison pc = compare_runs(base, noisy_cand, o);
  const CaseComparison& part = find_case(pc, "gemm/assay/f16/k=4096,m=4096,n=4096");
  EXPECT_EQ(part.verdict, Verdict::slower);
  EXPECT_TRUE(part.drift_covered) << part.why;
}

// The combination of the two verdicts, every pair: either metric's SLOWER or FASTER stands unless
// the other says the opposite; SAME needs one SAME and no change; NEW, GONE, FAILED are time's.
TEST(Comparison, TimeAndCyclesVerdictsCombine) {
  using V = Verdict;
  const V f = V::faster, s = V::slower, e = V::same, a = V::ambiguous;
  const std::vector<std::tuple<V, V, V>> table = {
      {f, f, f}, {f, e, f}, {f, a, f}, {f, s, a}, {s, s, s}, {s, e, s}, {s, a, s}, {s, f, a},
      {e, e, e}, {e, a, e}, {a, e, e}, {e, f, f}, {e, s, s}, {a, a, a}, {a, f, f}, {a, s, s},
      {V::new_case, s, V::new_case}, {V::gone, f, V::gone}, {V::failed, e, V::failed}};
  for (const auto& [time, cycles, both] : table)
    EXPECT_EQ(stats::combine_time_and_cycles(time, cycles), both)
        << stats::verdict_name(time) << " + " << stats::verdict_name(cycles);
}

TEST(Comparison, RenamedBenchStillMatchesButOtherGpuDoesNot) {
  const auto base = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 1000))})});
  const auto renamed = set_of("b", {doc_on(kH100, {ok_case("gemm-square", "assay", 1024, noisy(2, 1100))})});
  EXPECT_EQ(compare_runs(base, renamed, {}).cases.size(), 1u);

  const auto a100 = set_of("c", {doc_on("NVIDIA A100-SXM4-80GB", {ok_case("gemm", "assay", 1024, noisy(2, 2000), "cold", 312)})});
  const Comparison across = compare_runs(base, a100, {});
  ASSERT_EQ(across.cases.size(), 2u);
  EXPECT_EQ(across.cases[0].verdict, Verdict::new_case);
  EXPECT_EQ(across.cases[1].verdict, Verdict::gone);
  ASSERT_EQ(across.notes.size(), 1u);
  EXPECT_NE(across.notes[0].find("--normalize peak"), std::string::npos);

  // % of peak: 1000 ns on a 1000-TFLOP/s part vs 2000 ns on a 312-TFLOP/s part is 1.6x the
  // fraction of peak: FASTER by that measure.
  CompareOptions o;
  o.normalize_peak = true;
  const Comparison normalised = compare_runs(base, a100, o);
  ASSERT_EQ(normalised.cases.size(), 1u);
  EXPECT_EQ(normalised.metric, Metric::pct_of_peak);
  EXPECT_EQ(normalised.cases[0].verdict, Verdict::faster);
  EXPECT_NEAR(normalised.cases[0].stats->ratio, (1000.0 / 2000.0) * (1000.0 / 312.0), 0.05);
}

TEST(Comparison, ModeIsPartOfTheIdentity) {
  const auto cold = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 1000), "cold")})});
  const auto graph = set_of("b", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(2, 800), "graph")})});
  const Comparison c = compare_runs(cold, graph, {});
  ASSERT_EQ(c.cases.size(), 2u);
  EXPECT_EQ(c.cases[0].verdict, Verdict::new_case);
  EXPECT_EQ(c.cases[1].verdict, Verdict::gone);
}

TEST(Comparison, FailedCandidateMeetsItsBaseCase) {
  const auto base = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 1000))})});
  const auto cand = set_of("b", {doc_on(kH100, {assay::test::failed_case("gemm", "assay", 1024)})});
  const Comparison c = compare_runs(base, cand, {});
  ASSERT_EQ(c.cases.size(), 1u);
  EXPECT_EQ(c.cases[0].verdict, Verdict::failed);
  EXPECT_NE(c.cases[0].why.find("check-failed"), std::string::npos) << c.cases[0].why;
  // And the other way round: a base that failed gives the candidate no reference.
  const Comparison back = compare_runs(cand, base, {});
  ASSERT_EQ(back.cases.size(), 1u);
  EXPECT_EQ(back.cases[0].verdict, Verdict::new_case);
  EXPECT_NE(back.cases[0].why.find("no timing in the base"), std::string::npos);
}

TEST(Comparison, SessionsOfOneSideArePooled) {
  const auto base = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 1000, 20))}),
                                 doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(2, 1000, 20))})});
  const auto cand = set_of("b", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(3, 1060, 20))})});
  const Comparison c = compare_runs(base, cand, {});
  ASSERT_TRUE(c.cases[0].stats);
  EXPECT_EQ(c.cases[0].stats->base_sessions, 2u);
  EXPECT_EQ(c.cases[0].stats->base_n, 40u);
  EXPECT_EQ(c.cases[0].base->n, 40u);
}

TEST(Comparison, ImpossibleSamplesAreBadInput) {
  const auto base = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, {100, 0, 120})})});
  const auto cand = set_of("b", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(2, 100))})});
  EXPECT_THROW(compare_runs(base, cand, {}), InputError);
}

TEST(Comparison, FilterAndBadFilter) {
  Fixture f;
  CompareOptions o;
  o.filter = "cublas";
  EXPECT_EQ(compare_runs(f.base, f.cand, o).cases.size(), 3u);
  o.filter = "(";
  EXPECT_THROW(compare_runs(f.base, f.cand, o), InputError);
  o.filter = "nothing-matches";
  EXPECT_THROW(compare_runs(f.base, f.cand, o), InputError);
}

TEST(Gate, FailOnRequireAndFailedChecks) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  EXPECT_TRUE(apply_gate(c, {}).passed);
  const GateResult slower = apply_gate(c, {{Verdict::slower}, std::nullopt});
  EXPECT_FALSE(slower.passed);
  ASSERT_EQ(slower.reasons.size(), 1u);
  EXPECT_EQ(slower.reasons[0], "1 case(s) SLOWER (--fail-on)");
  const GateResult require = apply_gate(c, {{}, Verdict::same});  // NEW and GONE miss it for what they are
  ASSERT_EQ(require.reasons.size(), 1u);
  EXPECT_EQ(require.reasons[0].find("single-session"), std::string::npos) << require.reasons[0];
  EXPECT_FALSE(apply_gate(c, {{}, Verdict::faster}).passed);

  CompareOptions only_faster = with_quiet_history(f.cand);
  only_faster.filter = "assay/f16/k=2048";
  const Comparison faster = compare_runs(f.base, f.cand, only_faster);
  EXPECT_TRUE(apply_gate(faster, {{Verdict::slower}, Verdict::faster}).passed);

  const auto base = set_of("a", {doc_on(kH100, {ok_case("gemm", "assay", 1024, noisy(1, 1000))})});
  const auto broken = set_of("b", {doc_on(kH100, {assay::test::failed_case("gemm", "assay", 1024)})});
  const GateResult failed = apply_gate(compare_runs(base, broken, {}), {});
  EXPECT_FALSE(failed.passed);  // no rule asked for it: a failed check always fails
  EXPECT_NE(failed.reasons[0].find("FAILED"), std::string::npos);
  EXPECT_EQ(parse_verdict("Slower"), Verdict::slower);
  EXPECT_EQ(parse_verdict("NEW"), Verdict::new_case);
  EXPECT_FALSE(parse_verdict("worse"));
}

TEST(Outputs, MarkdownTableAndGate) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  const std::string md = comparison_markdown(c, apply_gate(c, {{Verdict::slower}, std::nullopt}));
  EXPECT_NE(md.find("## assay compare: `main` → `pr`"), std::string::npos);
  EXPECT_NE(md.find("**Gate: FAIL.** 1 case(s) SLOWER (--fail-on)."), std::string::npos) << md;
  EXPECT_NE(md.find("| `gemm/assay/f16/k=1024,m=1024,n=1024` | 100."), std::string::npos) << md;
  EXPECT_NE(md.find("| **SLOWER** |"), std::string::npos);
  EXPECT_NE(md.find("| NEW |"), std::string::npos);
  EXPECT_NE(md.find("Practical floor 2%, false-alarm rate alpha 0.01"), std::string::npos);
}

TEST(Outputs, JunitHasOneTestcasePerCaseAndFailsRegressions) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  const std::string xml = comparison_junit(c, {});
  std::size_t testcases = 0, failures = 0;
  for (std::size_t p = 0; (p = xml.find("<testcase ", p)) != std::string::npos; ++p) ++testcases;
  for (std::size_t p = 0; (p = xml.find("<failure ", p)) != std::string::npos; ++p) ++failures;
  EXPECT_EQ(testcases, 5u);
  EXPECT_EQ(failures, 1u);  // the SLOWER case, even without --fail-on
  EXPECT_NE(xml.find("tests=\"5\" failures=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<failure type=\"SLOWER\""), std::string::npos);
  EXPECT_NE(xml.find("main -&gt; pr"), std::string::npos);  // escaped
}

TEST(Outputs, CsvRowsHaveEveryColumn) {
  Fixture f;
  const std::string csv = comparison_csv(compare_runs(f.base, f.cand, {}));
  std::vector<std::string> lines;
  for (std::size_t a = 0, b; (b = csv.find('\n', a)) != std::string::npos; a = b + 1) lines.push_back(csv.substr(a, b - a));
  ASSERT_EQ(lines.size(), 6u);
  // Count the separators outside quotes: every row has as many as the header.
  const auto commas = [](const std::string& line) {
    int n = 0;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      n += ch == ',' && !quoted;
    }
    return n;
  };
  for (const auto& l : lines) EXPECT_EQ(commas(l), commas(lines[0])) << l;
  EXPECT_EQ(lines[1].rfind("gemm/assay/f16/k=1024,m=1024,n=1024,", 0), std::string::npos);  // the id is quoted
  EXPECT_EQ(lines[1].rfind("\"gemm/assay/f16/k=1024,m=1024,n=1024\",", 0), 0u);
  EXPECT_NE(lines[1].find(",SLOWER,"), std::string::npos);
}

// Strings from the documents (a case id, a reason) cannot break the outputs: a backtick or a lone
// CR in an id, raw HTML or an ANSI colour code in a reason.
TEST(Outputs, HostileTextStaysText) {
  CaseRecord odd = ok_case("gemm", "assay", 1024, noisy(1, 1000));
  odd.id = "gemm`<b>x</b>\rnext";
  CaseRecord broken = assay::test::failed_case("gemm", "assay", 1024);
  broken.id = odd.id;
  broken.reason = "\x1b[31merror\x1b[0m </details><img src=x>";
  const Comparison c = compare_runs(set_of("a", {doc_on(kH100, {odd})}), set_of("b", {doc_on(kH100, {broken})}), {});
  const std::string md = comparison_markdown(c, apply_gate(c, {}));
  EXPECT_NE(md.find("| ``gemm`<b>x</b> next`` |"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  EXPECT_NE(md.find("&lt;/details&gt;&lt;img src=x&gt;"), std::string::npos) << md;
  const std::string xml = comparison_junit(c, {});
  EXPECT_EQ(xml.find('\x1b'), std::string::npos);
  EXPECT_NE(xml.find("\xEF\xBF\xBD[31merror"), std::string::npos) << xml;
  EXPECT_NE(comparison_csv(c).find("\"gemm`<b>x</b>\rnext\""), std::string::npos);  // quoted: a lone CR ends a row
}

TEST(Outputs, BencherMetricFormatOfTheCandidate) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, {});
  const auto bmf = nlohmann::json::parse(comparison_bmf(c));
  EXPECT_EQ(bmf.size(), 4u);  // the GONE case has no candidate value
  const auto& latency = bmf["gemm/assay/f16/k=1024,m=1024,n=1024"]["latency"];
  const auto& cc = find_case(c, "gemm/assay/f16/k=1024,m=1024,n=1024");
  EXPECT_EQ(latency["value"].get<double>(), cc.cand->median);
  EXPECT_LE(latency["lower_value"].get<double>(), cc.cand->median);
  EXPECT_GE(latency["upper_value"].get<double>(), cc.cand->median);
}

TEST(Outputs, TerminalTableSaysWhy) {
  Fixture f;
  const Comparison c = compare_runs(f.base, f.cand, with_quiet_history(f.cand));
  const std::string t = comparison_table(c, apply_gate(c, {}));
  EXPECT_NE(t.find("SLOWER gemm/assay/f16/k=1024,m=1024,n=1024: 4.9% slower: ratio 1.049"), std::string::npos) << t;
  EXPECT_NE(t.find("1 FASTER, 1 SLOWER"), std::string::npos) << t;
  EXPECT_NE(t.find("gate: pass"), std::string::npos);
}
