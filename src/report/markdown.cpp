#include "report/markdown.hpp"

#include "core/ids.hpp"
#include "core/results.hpp"
#include "report/escape.hpp"
#include "report/sm_clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace assay::report {

namespace {


std::string time_us(double ns) { return fmt::format("{:.2f}", ns / 1e3); }

// The median SM clock of a case's kept samples (the sampler's clock probe), or "-" without one:
// from 4096^3 up a GEMM runs under the power cap, and two kernels' times differ by their clocks
// as much as by their cycles (docs/measurement-notes.md, v9).
std::string sm_clock(const CaseRecord& c) {
  return sm_clock_text(c.measurement ? median_sm_clock_mhz(c.measurement->sm_clock_mhz) : 0);
}

// One row per case that has a time, in document order.
struct Row {
  std::vector<std::string> cells;
};

std::vector<std::string> header() {
  return {"bench", "dtype", "shape", "backend", "median us", "+-CI %", "TFLOP/s", "% peak",
          "SM MHz", "baseline us", "speedup", "at one clock", "stop", "status"};
}

std::vector<Row> rows_of(const ResultsDocument& doc) {
  std::vector<Row> rows;
  for (const auto& c : doc.cases) {
    Row r;
    const bool timed = c.status == CaseStatus::ok && c.summary;
    r.cells = {c.bench,
               c.dtype,
               params_string(c.params),
               c.backend + (c.backend == c.baseline ? " (base)" : ""),
               timed ? time_us(c.summary->median) : "-",
               timed && std::isfinite(c.summary->median_ci_rel_halfwidth)
                   ? fmt::format("{:.2f}", 100 * c.summary->median_ci_rel_halfwidth)
                   : "-",
               timed && c.derived ? fmt::format("{:.4g}", c.derived->tflops) : "-",
               timed && c.derived && c.derived->peak_tflops > 0 ? fmt::format("{:.1f}", c.derived->pct_of_peak) : "-",
               timed ? sm_clock(c) : "-",
               c.baseline_median_ns && c.backend != c.baseline ? time_us(*c.baseline_median_ns) : "-",
               c.speedup_vs_baseline && c.backend != c.baseline ? fmt::format("{:.3f}x", *c.speedup_vs_baseline) : "-",
               c.cycles_speedup_vs_baseline && c.backend != c.baseline ? fmt::format("{:.3f}x", *c.cycles_speedup_vs_baseline)
                                                                       : "-",
               c.measurement && timed ? c.measurement->stop_reason : "-",
               case_status_name(c.status) + (c.telemetry && c.telemetry->unstable ? " (unstable)" : "")};
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

// The default memset flush goes unsaid, as in every document written before the choice existed.
std::string mode_text(const ResultsDocument& doc) {
  std::size_t cold = 0, clean = 0;
  for (const CaseRecord& c : doc.cases)
    if (c.measurement && c.measurement->mode == "cold") {
      ++cold;
      clean += c.measurement->l2_flush == kL2FlushClean ? 1 : 0;
    }
  if (clean == 0) return doc.run.mode;
  if (clean == cold) return doc.run.mode + " (L2 flush: clean)";
  return doc.run.mode + fmt::format(" (L2 flush: clean in {} of {} cold cases)", clean, cold);
}

std::string device_line(const RunRecord& run) {
  const auto& d = run.device;
  if (d.kind == "cuda")
    return fmt::format("{} ({}, {} SMs, max SM clock {} MHz), driver {}, runtime {}", d.name,
                       sm_name(d.compute_capability), d.sm_count,
                       d.max_sm_clock_mhz, d.driver_version, d.runtime_version);
  return fmt::format("{} ({} threads)", d.name, d.cpu_threads);
}

std::string markdown_summary(const ResultsDocument& doc) {
  if (doc.run.mode == "profile") return profile_markdown(doc);
  const auto& run = doc.run;
  std::string md = fmt::format("# assay results: {}{}\n\n", run.suite_name, run.tag.empty() ? "" : " (" + run.tag + ")");
  md += fmt::format("- device: {}\n- mode: {}\n- commit: {}{}\n- started: {}\n- command: `", device_line(run),
                    mode_text(doc), run.git_commit.empty() ? "(none)" : run.git_commit, run.git_dirty ? " (dirty)" : "",
                    run.started_utc);
  for (std::size_t i = 0; i < run.command_line.size(); ++i) md += (i ? " " : "") + run.command_line[i];
  md += "`\n";
  if (const auto it = run.environment.find("tuning"); it != run.environment.end()) {
    md += "- tuning table: `" + it->second + "`; cases it re-routed:";
    bool any = false;
    for (const auto& c : doc.cases)
      if (const auto at = c.variant.find("(tuning table: "); at != std::string::npos) {
        md += fmt::format("{} `{}` {}", any ? ";" : "", c.id, c.variant.substr(at + 15, c.variant.size() - at - 16));
        any = true;
      }
    md += any ? "\n" : " none\n";
  }
  md += "\nTimes are medians; +-CI is the relative half-width of the 95% CI of the median; "
        "SM MHz is the median SM clock of the timed samples (clock probe); "
        "speedup = baseline median / candidate median (>1: candidate faster); at one clock = the same "
        "ratio of the median cycles (each sample's time x its SM clock), where the power cap moved the clock "
        "between the two (not for memory-bound kernels, whose time does not follow the SM clock).\n\n";
  const auto h = header();
  md += "|";
  for (const auto& x : h) md += " " + x + " |";
  md += "\n|";
  for (std::size_t i = 0; i < h.size(); ++i) md += i < 4 ? "---|" : "---:|";
  md += "\n";
  for (const auto& r : rows_of(doc)) {
    md += "|";
    for (const auto& x : r.cells) md += " " + x + " |";
    md += "\n";
  }
  bool any_unstable = false;
  for (const auto& c : doc.cases) {
    if (!c.telemetry || !c.telemetry->unstable) continue;
    if (!any_unstable) md += "\n## Cases measured on an unstable GPU (NVML)\n\n";
    any_unstable = true;
    std::string why;
    for (const auto& r : c.telemetry->unstable_reasons) why += (why.empty() ? "" : "; ") + r;
    md += fmt::format("- {}: {}\n", markdown_code(c.id), markdown_text(why));
  }
  bool any = false;
  for (const auto& c : doc.cases) {
    if (c.status == CaseStatus::ok) continue;
    if (!any) md += "\n## Cases that are not ok\n\n";
    any = true;
    md += fmt::format("- {}: **{}**: {}\n", markdown_code(c.id), case_status_name(c.status), markdown_text(c.reason));
  }
  return md;
}

std::string terminal_table(const ResultsDocument& doc) {
  const auto h = header();
  auto rows = rows_of(doc);
  std::vector<std::size_t> width(h.size());
  for (std::size_t i = 0; i < h.size(); ++i) width[i] = h[i].size();
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.cells.size(); ++i) width[i] = std::max(width[i], r.cells[i].size());
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i)
      s += (i ? "  " : "") + (i < 4 ? fmt::format("{:<{}}", cells[i], width[i]) : fmt::format("{:>{}}", cells[i], width[i]));
    return s + "\n";
  };
  std::string out = "device: " + device_line(doc.run) + "   mode: " + mode_text(doc) + "\n";
  out += line(h);
  for (const auto& r : rows) out += line(r.cells);
  return out;
}

}  // namespace assay::report
