// The HTML report's renderer and data model (src/report/html_report.*, report_data.*): the
// page's structure, text from the documents that tries to end a script block, documents with
// failed cases and no samples, an empty history, the box statistics, missing assets. The page
// in a browser is tests/html.cmake's job.
#include <gtest/gtest.h>

#include <string>

#include "compare_test_docs.hpp"
#include "compare/comparison.hpp"
#include "compare/gate.hpp"
#include "core/error.hpp"
#include "report/html_report.hpp"
#include "store/case_key.hpp"

using namespace assay;
using namespace assay::report;
using assay::test::doc_on;
using assay::test::failed_case;
using assay::test::kH100;
using assay::test::ok_case;
using nlohmann::json;

namespace {

const HtmlAssets kAssets{"echarts test", "/*library*/ var echarts = {};", "/*page*/", "body{}", ""};

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// The text of the <script type="application/json"> block, parsed back.
json data_block(const std::string& page) {
  const std::string open = "<script type=\"application/json\" id=\"assay-data\">";
  const auto b = page.find(open);
  EXPECT_NE(b, std::string::npos);
  const auto e = page.find("</script>", b);
  return json::parse(page.substr(b + open.size(), e - b - open.size()));
}

ReportInputs inputs_of(std::vector<ResultsDocument> docs) {
  ReportInputs in;
  in.generated_utc = "2026-11-26T00:00:00Z";
  store::RunSet rs;
  rs.label = "run.json";
  rs.origin = "run.json";
  rs.sessions = std::move(docs);
  in.runs.push_back(std::move(rs));
  return in;
}

std::vector<double> samples(double median, int n) {
  std::vector<double> s;
  for (int i = 0; i < n; ++i) s.push_back(median * (1 + 0.001 * ((i * 37) % 11 - 5)));
  return s;
}

}  // namespace

TEST(HtmlReport, PageHoldsTheDataTheLibraryAndThePageScriptInOrder) {
  const std::string page = render_html_report(
      inputs_of({doc_on(kH100, {ok_case("gemm", "assay", 1024, samples(1000, 50)),
                                ok_case("gemm", "cublas", 1024, samples(900, 50))})}),
      kAssets);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count_of(page, "<script"), 3u);
  EXPECT_EQ(count_of(page, "</script>"), 3u);
  const auto data_at = page.find("application/json"), lib_at = page.find("/*library*/"), page_at = page.find("/*page*/");
  EXPECT_LT(data_at, lib_at);
  EXPECT_LT(lib_at, page_at);
  EXPECT_EQ(page.find("src="), std::string::npos);   // nothing loaded from elsewhere
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  const json d = data_block(page);
  EXPECT_EQ(d["schema"], "assay.report");
  ASSERT_EQ(d["cases"].size(), 2u);
  EXPECT_TRUE(d["cases"][0]["plotted"].get<bool>());
  EXPECT_EQ(d["benches"][0]["name"], "gemm");
  EXPECT_TRUE(d["comparison"].is_null());
  EXPECT_TRUE(d["history"].is_null());
  EXPECT_NE(page.find("<title>assay report: gemm</title>"), std::string::npos);
}

TEST(HtmlReport, TextFromTheDocumentsCannotEndTheScriptBlock) {
  const std::string evil = "</script><script>window.pwned=1</script><!--";
  CaseRecord c = ok_case("gemm", "assay", 1024, samples(1000, 20));
  c.id = "gemm/" + evil;
  c.reason = "</SCRIPT >" + evil;
  ResultsDocument doc = doc_on(kH100, {c});
  doc.run.suite_name = "suite " + evil;  // also the page's title
  doc.run.tag = "<!--<script>";
  const std::string page = render_html_report(inputs_of({doc}), kAssets);
  EXPECT_EQ(count_of(page, "</script>"), 3u);  // only the three blocks' own ends
  EXPECT_EQ(count_of(page, "<script"), 3u);
  EXPECT_EQ(page.find("<!--"), std::string::npos);
  EXPECT_NE(page.find("<title>assay report: suite &lt;/script&gt;"), std::string::npos);
  const json d = data_block(page);  // and the strings come back as they were
  EXPECT_EQ(d["cases"][0]["id"], c.id);
  EXPECT_EQ(d["cases"][0]["reason"], c.reason);
  EXPECT_EQ(d["runs"][0]["sessions"][0]["tag"], "<!--<script>");
}

TEST(HtmlReport, InlineScriptsAreEscapedInAnyCase) {
  EXPECT_EQ(script_for_inline("a='</script>';b='</SCRIPT'"), "a='<\\/script>';b='<\\/SCRIPT'");
  EXPECT_EQ(script_for_inline("x</scrip"), "x</scrip");
  EXPECT_EQ(html_escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  EXPECT_EQ(json_for_script_block(json{{"s", "</script>"}}), "{\"s\":\"\\u003c/script>\"}");
}

TEST(HtmlReport, FailedCasesWithoutSamplesAreListedNotPlotted) {
  CaseRecord skipped = failed_case("gemm", "cublas", 2048);
  skipped.status = CaseStatus::skipped;
  skipped.reason = "no CUDA device";
  CaseRecord crashed = failed_case("gemm", "assay", 4096);
  crashed.status = CaseStatus::crashed;
  crashed.check.reset();
  const std::string page = render_html_report(
      inputs_of({doc_on(kH100, {failed_case("gemm", "assay", 1024), skipped, crashed})}), kAssets);
  const json d = data_block(page);
  ASSERT_EQ(d["cases"].size(), 3u);
  for (const auto& c : d["cases"]) {
    EXPECT_FALSE(c["plotted"].get<bool>());
    EXPECT_FALSE(c.contains("median_ns"));
    EXPECT_FALSE(c.contains("box"));
  }
  EXPECT_EQ(d["cases"][0]["status"], "check-failed");
  EXPECT_EQ(d["cases"][1]["reason"], "no CUDA device");
}

TEST(HtmlReport, AnEmptyDocumentAndAnEmptyHistoryStillMakeAPage) {
  ReportInputs in = inputs_of({doc_on(kH100, {})});
  in.history = ReportHistory{"h.db", "", {}};
  const json d = data_block(render_html_report(in, kAssets));
  EXPECT_TRUE(d["cases"].empty());
  ASSERT_TRUE(d["history"].is_object());
  EXPECT_EQ(d["history"]["path"], "h.db");
  EXPECT_TRUE(d["history"]["trends"].empty());
}

TEST(HtmlReport, HistoryKeepsTheTrendsOfTheDocumentsCasesWithTheirChangePoints) {
  ResultsDocument doc = doc_on(kH100, {ok_case("gemm", "assay", 1024, samples(1000, 20))});
  CaseTrend mine;
  mine.case_id = doc.cases[0].id;
  mine.key = store::case_key(doc.run, doc.cases[0]).text();
  for (int i = 0; i < 6; ++i) mine.points.push_back({i + 1, "g" + std::to_string(i), "2026-11-2" + std::to_string(i) + "T00:00:00Z",
                                                     "c0ffee", "", i < 3 ? 1000.0 : 1100.0, 1});
  mine.change_points.push_back({3, 1000, 1100, 0.1, 1e-6});
  CaseTrend other = mine;
  other.key = "gemm/other/f16/k=1 [cold] @ " + std::string(kH100);
  ReportInputs in = inputs_of({doc});
  in.history = ReportHistory{"h.db", "2026-11-01T00:00:00Z", {mine, other}};
  const json d = data_block(render_html_report(in, kAssets));
  ASSERT_EQ(d["history"]["trends"].size(), 1u);
  const json& t = d["history"]["trends"][0];
  EXPECT_EQ(t["points"].size(), 6u);
  ASSERT_EQ(t["change_points"].size(), 1u);
  EXPECT_EQ(t["change_points"][0]["index"], 3);
  EXPECT_DOUBLE_EQ(t["change_points"][0]["magnitude"].get<double>(), 0.1);
}

TEST(HtmlReport, BoxIsTukeysRelativeToTheMedianWithTheOutliersCounted) {
  std::vector<double> s;
  for (int i = 1; i <= 99; ++i) s.push_back(1000 + i);  // median 1050, IQR 49
  s.push_back(5000);
  const json d = data_block(render_html_report(inputs_of({doc_on(kH100, {ok_case("gemm", "assay", 1024, s)})}), kAssets));
  const json& box = d["cases"][0]["box"];
  const double med = 1050.5;
  EXPECT_DOUBLE_EQ(box["median"].get<double>(), 1.0);
  EXPECT_NEAR(box["whisker_lo"].get<double>(), 1001 / med, 1e-12);
  EXPECT_NEAR(box["whisker_hi"].get<double>(), 1099 / med, 1e-12);
  EXPECT_EQ(box["outliers_total"], 1);
  EXPECT_NEAR(box["outliers"][0].get<double>(), 5000 / med, 1e-12);
}

TEST(HtmlReport, ComparisonCarriesVerdictsNoiseAndTheGate) {
  ResultsDocument base = doc_on(kH100, {ok_case("gemm", "assay", 1024, samples(1000, 40))});
  ResultsDocument cand = doc_on(kH100, {ok_case("gemm", "assay", 1024, samples(1100, 40))});
  ReportInputs in = inputs_of({cand});
  store::RunSet b;
  b.label = "base.json";
  b.sessions = {base};
  in.comparison = compare::compare_runs(b, in.runs[0], {});
  in.gate = compare::apply_gate(*in.comparison, {});
  const json d = data_block(render_html_report(in, kAssets));
  const json& c = d["comparison"];
  ASSERT_EQ(c["cases"].size(), 1u);
  EXPECT_EQ(c["cases"][0]["verdict"], stats::verdict_name(in.comparison->cases[0].verdict));
  EXPECT_NEAR(c["cases"][0]["ratio"].get<double>(), 1.1, 0.01);
  EXPECT_TRUE(c["cases"][0].contains("noise"));
  EXPECT_TRUE(c["cases"][0].contains("drift_covered"));
  EXPECT_EQ(c["gate"]["passed"], in.gate.passed);
}

TEST(HtmlReport, PeakBandwidthFromTheDeviceRecord) {
  DeviceRecord h100;
  h100.max_memory_clock_mhz = 2619;
  h100.memory_bus_width_bits = 5120;
  EXPECT_NEAR(peak_memory_gbs(h100), 3352.32, 1e-9);
  EXPECT_EQ(peak_memory_gbs(DeviceRecord{}), 0);
}

TEST(HtmlReport, MissingAssetsAreAnErrorNamingThem) {
  HtmlAssets none;
  none.missing = "this assay was built without node and npm";
  try {
    render_html_report(inputs_of({}), none);
    FAIL() << "no error";
  } catch (const InternalError& e) {
    EXPECT_NE(std::string(e.what()).find("without node and npm"), std::string::npos);
  }
}
