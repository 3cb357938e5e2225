// The run's Markdown and terminal tables: every timed case shows the median SM clock of its kept
// samples (the clock probe), so that a time difference can be read as cycles or as clock.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/markdown.hpp"
#include "stats/summary.hpp"

namespace {

using namespace assay;

CaseRecord timed_case(const std::string& backend, std::vector<double> samples_ns, std::vector<double> clocks) {
  CaseRecord c;
  c.id = "gemm16/" + backend + "/bf16/m=4096";
  c.bench = "gemm16";
  c.backend = backend;
  c.baseline = "cublas";
  c.dtype = "bf16";
  c.params = {{"m", 4096}};
  c.status = CaseStatus::ok;
  MeasurementRecord m;
  m.mode = "cold";
  m.samples_ns = samples_ns;
  m.sm_clock_mhz = std::move(clocks);
  m.stop_reason = "converged";
  c.measurement = m;
  c.summary = stats::summarize(samples_ns);
  return c;
}

ResultsDocument doc_with_clocks() {
  ResultsDocument doc;
  doc.run.suite_name = "clocks";
  doc.run.mode = "cold";
  // The probe's 0 (no timer tick seen) is no clock: left out of the median.
  doc.cases.push_back(timed_case("assay", {186e3, 187e3, 185e3, 186e3, 186e3}, {1810, 1790, 0, 1796, 1700}));
  doc.cases.push_back(timed_case("cpu", {5e6, 5.1e6, 4.9e6}, {}));  // no clock probe
  CaseRecord failed = timed_case("cublas", {1e3}, {1900});
  failed.status = CaseStatus::check_failed;
  failed.summary.reset();
  doc.cases.push_back(failed);
  return doc;
}

// The cells of the Markdown row whose backend cell is `backend`.
std::vector<std::string> markdown_row(const std::string& md, const std::string& backend) {
  std::size_t at = md.find("| " + backend + " |");
  EXPECT_NE(at, std::string::npos) << backend;
  if (at == std::string::npos) return {};
  const std::size_t begin = md.rfind('\n', at) + 1, end = md.find('\n', at);
  std::vector<std::string> cells;
  std::string row = md.substr(begin, end - begin), cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '|') {
      cells.push_back(cell.substr(1, cell.size() - 2));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return cells;
}

// The default memset flush goes unsaid; a clean one is named where the mode is.
TEST(RunReport, TheModeLineNamesACleanFlush) {
  ResultsDocument doc = doc_with_clocks();
  EXPECT_NE(report::markdown_summary(doc).find("- mode: cold\n"), std::string::npos);
  EXPECT_NE(report::terminal_table(doc).find("mode: cold\n"), std::string::npos);
  for (auto& c : doc.cases)
    if (c.measurement) c.measurement->mode = "cold";
  doc.cases[0].measurement->l2_flush = "clean";
  EXPECT_NE(report::markdown_summary(doc).find("- mode: cold (L2 flush: clean in 1 of "), std::string::npos)
      << report::markdown_summary(doc);
  for (auto& c : doc.cases)
    if (c.measurement) c.measurement->l2_flush = "clean";
  EXPECT_NE(report::markdown_summary(doc).find("- mode: cold (L2 flush: clean)\n"), std::string::npos);
  EXPECT_NE(report::terminal_table(doc).find("mode: cold (L2 flush: clean)\n"), std::string::npos);
}

TEST(RunReport, MarkdownShowsTheMedianSmClockOfTheSamples) {
  const std::string md = report::markdown_summary(doc_with_clocks());
  EXPECT_NE(md.find("| % peak | SM MHz | baseline us |"), std::string::npos) << md;
  EXPECT_NE(md.find("SM MHz is the median SM clock"), std::string::npos);
  const auto assay = markdown_row(md, "assay");
  ASSERT_EQ(assay.size(), 14u);
  EXPECT_EQ(assay[8], "1793");  // median of 1700, 1790, 1796, 1810
  const auto cpu = markdown_row(md, "cpu");
  ASSERT_EQ(cpu.size(), 14u);
  EXPECT_EQ(cpu[8], "-");  // no probe, no clock
  const auto failed = markdown_row(md, "cublas (base)");
  ASSERT_EQ(failed.size(), 14u);
  EXPECT_EQ(failed[8], "-");  // a case that was not timed shows no clock
}

TEST(RunReport, TerminalTableHasTheClockColumn) {
  const std::string t = report::terminal_table(doc_with_clocks());
  EXPECT_NE(t.find("SM MHz"), std::string::npos) << t;
  EXPECT_NE(t.find("1793"), std::string::npos) << t;
}

}  // namespace
