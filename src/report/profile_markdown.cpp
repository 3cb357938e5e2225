// The Markdown of an `assay profile` document (docs/profile.md).
#include <fmt/format.h>

#include "report/markdown.hpp"

namespace assay::report {

namespace {

std::string opt(const std::optional<double>& v, const char* format, double scale = 1) {
  return v ? fmt::format(fmt::runtime(format), *v * scale) : "–";
}

// Template-heavy kernel names run to hundreds of characters; the table keeps the head.
std::string short_name(const std::string& name) {
  std::string s = name.size() > 72 ? name.substr(0, 70) + "…" : name;
  for (auto& c : s)
    if (c == '|') c = '/';
  return "`" + s + "`";
}

std::string stalls_text(const KernelProfileRecord& k) {
  std::string s;
  for (std::size_t i = 0; i < k.stalls.size() && i < 3; ++i)
    s += fmt::format("{}{} {:.2g}", s.empty() ? "" : ", ", k.stalls[i].first, k.stalls[i].second);
  return s.empty() ? "–" : s;
}

std::string smem_text(const KernelProfileRecord& k) {
  if (!k.shared_static_bytes && !k.shared_dynamic_bytes) return "–";
  return fmt::format("{:.1f}", (k.shared_static_bytes.value_or(0) + k.shared_dynamic_bytes.value_or(0)) / 1024.0);
}

std::string tensor_text(const KernelProfileRecord& k) {
  std::string s = opt(k.tensor_pipe_pct, "{:.1f}");
  if (k.wgmma_instructions && *k.wgmma_instructions > 0) s += " (wgmma)";
  else if (k.mma_instructions && *k.mma_instructions > 0) s += " (mma)";
  return s;
}

}  // namespace

std::string profile_markdown(const ResultsDocument& doc) {
  const auto& run = doc.run;
  std::string md = fmt::format("# assay profile: {}{}\n\n", run.suite_name, run.tag.empty() ? "" : " (" + run.tag + ")");
  const auto env = [&](const char* key) {
    const auto it = run.environment.find(key);
    return it == run.environment.end() ? std::string("?") : it->second;
  };
  md += fmt::format("- device: {}\n- profiler: {}, clock control {}, metric table {}\n- commit: {}{}\n- command: `",
                    device_line(run), env("profiler"), env("profiler.clock_control"), env("profiler.metric_table"),
                    run.git_commit.empty() ? "(none)" : run.git_commit, run.git_dirty ? " (dirty)" : "");
  for (std::size_t i = 0; i < run.command_line.size(); ++i) md += (i ? " " : "") + run.command_line[i];
  md += "`\n\nEach case's output was checked against the oracle before its profile counts. Figures are medians "
        "over a kernel's launches in the profiler's window, caches flushed before each (cold); percentages are "
        "of the GPU's peak over the kernel's elapsed time (speed of light). µs/call = duration x launches / "
        "calls. The roofline uses the workload's FLOPs and least bytes over the kernels' time per call.\n";
  for (const auto& c : doc.cases) {
    if (!c.profile) continue;
    const ProfileRecord& p = *c.profile;
    md += fmt::format("\n## {}\n\n", c.id);
    md += fmt::format("**{}**: {}. {}  \n", p.bottleneck, p.rule, p.advice);
    md += fmt::format("Kernel time {:.2f} µs per call over {} call{}", p.kernel_ns_per_call / 1e3, p.calls,
                      p.calls == 1 ? "" : "s");
    if (p.bound_tflops > 0)
      md += fmt::format("; intensity {:.1f} FLOP/B, roof there {:.1f} TFLOP/s ({} roof), achieved {:.1f} "
                        "TFLOP/s = {:.0f}% of it",
                        p.intensity, p.bound_tflops, p.under_memory_roof ? "memory" : "compute", p.achieved_tflops,
                        100 * p.fraction_of_bound);
    md += ".\n\n| kernel | launches | µs | SM MHz | compute % | memory % | DRAM % | DRAM GB/s | L2 hit % | "
          "tensor % | occupancy % | regs | smem KiB | local B | top stalls | class |\n"
          "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|\n";
    for (const auto& k : p.kernels)
      md += fmt::format("| {} | {} | {:.2f} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                        short_name(k.name), k.launches, k.duration_ns / 1e3, opt(k.sm_clock_mhz, "{:.0f}"),
                        opt(k.compute_pct, "{:.1f}"), opt(k.memory_pct, "{:.1f}"), opt(k.dram_pct, "{:.1f}"),
                        opt(k.dram_gbs, "{:.0f}"), opt(k.l2_hit_pct, "{:.1f}"), tensor_text(k),
                        opt(k.occupancy_pct, "{:.1f}"), opt(k.registers_per_thread, "{:.0f}"), smem_text(k),
                        opt(k.local_bytes, "{:.0f}"), stalls_text(k), k.bottleneck);
    if (!p.excluded.empty()) {
      md += "\nassay's own kernels seen in the window and left out:";
      for (const auto& e : p.excluded) md += " " + short_name(e);
      md += "\n";
    }
  }
  bool any = false;
  for (const auto& c : doc.cases) {
    if (c.status == CaseStatus::ok && c.profile) continue;
    if (!any) md += "\n## Cases without a profile\n\n";
    any = true;
    md += fmt::format("- `{}`: **{}**: {}\n", c.id, case_status_name(c.status), c.reason);
  }
  return md;
}

}  // namespace assay::report
