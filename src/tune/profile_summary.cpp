#include "tune/profile_summary.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "tune/bottleneck.hpp"

namespace assay::tune {

namespace {

std::optional<double> median_of(const std::vector<const NcuRow*>& rows, const std::string& metric) {
  if (metric.empty()) return std::nullopt;
  std::vector<double> v;
  for (const NcuRow* r : rows)
    if (const auto x = r->number(metric)) v.push_back(*x);
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// A percentage ncu gave, refused outside [0, 200] (a few of ncu's rates pass 100 slightly; -500
// or 1e9 is a broken log, which must not be classed as a bottleneck).
std::optional<double> pct_of(const std::vector<const NcuRow*>& rows, const std::string& metric, const std::string& kernel) {
  const auto v = median_of(rows, metric);
  if (v && !(*v >= 0 && *v <= 200))
    throw std::invalid_argument("ncu gave " + std::to_string(*v) + " for " + metric + " of kernel " + kernel +
                                ": a percentage, in [0, 200]");
  return v;
}

std::optional<double> sum_of(std::optional<double> a, std::optional<double> b) {
  if (!a && !b) return std::nullopt;
  return a.value_or(0) + b.value_or(0);
}

// The stall reasons of a kernel, largest first; "selected" (the warp was issuing) is no stall.
std::vector<std::pair<std::string, double>> top_stalls(const std::vector<const NcuRow*>& rows, std::size_t keep) {
  std::vector<std::pair<std::string, double>> v;
  for (const auto& [metric, cell] : rows.front()->values) {
    const std::string reason = stall_reason(metric);
    if (reason.empty() || reason == "selected") continue;
    if (const auto x = median_of(rows, metric); x && *x > 0) v.emplace_back(reason, *x);
  }
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > keep) v.resize(keep);
  return v;
}

KernelProfileRecord kernel_record(const std::string& name, const std::vector<const NcuRow*>& rows,
                                  const MetricTable& m) {
  KernelProfileRecord k;
  k.name = name;
  k.launches = rows.size();
  k.grid = rows.front()->grid;
  k.block = rows.front()->block;
  for (const NcuRow* r : rows) {  // every launch's own duration: their sum is the kernel's time
    const auto d = r->number(m.duration);
    if (!d || !(*d > 0) || *d > 1e15)
      throw std::invalid_argument("ncu gave no duration in (0, 1e15] ns (" + m.duration + ") for a launch of kernel " + name);
    k.total_ns += *d;
  }
  k.duration_ns = *median_of(rows, m.duration);
  if (const auto hz = median_of(rows, m.sm_clock_hz)) k.sm_clock_mhz = *hz / 1e6;
  k.compute_pct = pct_of(rows, m.compute_pct, name);
  k.memory_pct = pct_of(rows, m.memory_pct, name);
  k.dram_pct = pct_of(rows, m.dram_pct, name);
  k.dram_bytes = sum_of(median_of(rows, m.dram_read_bytes), median_of(rows, m.dram_write_bytes));
  if (const auto bps = median_of(rows, m.dram_bytes_per_s)) k.dram_gbs = *bps / 1e9;
  k.l2_hit_pct = pct_of(rows, m.l2_hit_pct, name);
  k.tensor_pipe_pct = pct_of(rows, m.tensor_pipe_pct, name);
  k.wgmma_instructions = median_of(rows, m.wgmma_instructions);
  if (const auto all = median_of(rows, m.tensor_instructions))
    k.mma_instructions = std::max(0.0, *all - k.wgmma_instructions.value_or(0));
  k.occupancy_pct = pct_of(rows, m.occupancy_pct, name);
  k.registers_per_thread = median_of(rows, m.registers);
  k.shared_static_bytes = median_of(rows, m.shared_static);
  k.shared_dynamic_bytes = median_of(rows, m.shared_dynamic);
  k.local_bytes = sum_of(median_of(rows, m.local_load_bytes), median_of(rows, m.local_store_bytes));
  k.stalls = top_stalls(rows, 5);
  const Diagnosis d = diagnose({k.tensor_pipe_pct, k.compute_pct, k.dram_pct, k.memory_pct});
  k.bottleneck = bottleneck_name(d.kind);
  k.rule = d.rule;
  k.advice = d.advice;
  return k;
}

}  // namespace

bool is_assay_timing_kernel(const std::string& name) {
  for (const char* own : {"blocking_kernel", "clock_probe_kernel", "spin_kernel"})
    if (name.find(own) != std::string::npos && (name.find("assay::gpu") != std::string::npos || name == own))
      return true;
  return false;
}

ProfileRecord summarize_profile(const NcuTable& table, const MetricTable& metrics, const ProfileContext& ctx) {
  if (ctx.calls == 0) throw std::invalid_argument("summarize_profile: zero calls");
  ProfileRecord p;
  p.tool = ctx.tool;
  p.clock_control = ctx.clock_control;
  p.metric_table = metrics.name;
  p.calls = ctx.calls;
  // Launches grouped by kernel and launch shape: one kernel run at two grids (a GEMM at two
  // sizes) is two entries, so that each entry's medians describe launches alike.
  using Key = std::tuple<std::string, std::string, std::string>;  // name, grid, block
  std::vector<Key> order;  // in the order of their first launch
  std::map<Key, std::vector<const NcuRow*>> by_launch;
  for (const NcuRow& r : table.rows) {
    if (is_assay_timing_kernel(r.kernel)) {
      if (std::find(p.excluded.begin(), p.excluded.end(), r.kernel) == p.excluded.end()) p.excluded.push_back(r.kernel);
      continue;
    }
    const Key key{r.kernel, r.grid, r.block};
    auto& rows = by_launch[key];
    if (rows.empty()) order.push_back(key);
    rows.push_back(&r);
  }
  if (order.empty())
    throw std::invalid_argument("ncu profiled no kernel of the case's calls" +
                                std::string(table.errors.empty() ? "" : " (ncu: " + table.errors.front() + ")"));
  for (const auto& key : order) p.kernels.push_back(kernel_record(std::get<0>(key), by_launch[key], metrics));
  const auto per_call = [&](const KernelProfileRecord& k) { return k.total_ns / static_cast<double>(ctx.calls); };
  std::stable_sort(p.kernels.begin(), p.kernels.end(),
                   [&](const auto& a, const auto& b) { return per_call(a) > per_call(b); });
  for (const auto& k : p.kernels) p.kernel_ns_per_call += per_call(k);
  p.flops = ctx.flops;
  p.min_bytes = ctx.min_bytes;
  if (ctx.flops > 0 && ctx.min_bytes > 0 && ctx.peak_tflops > 0 && ctx.peak_gbs > 0) {
    const RooflinePoint r = roofline(ctx.flops, ctx.min_bytes, p.kernel_ns_per_call, ctx.peak_tflops, ctx.peak_gbs);
    p.intensity = r.intensity;
    p.bound_tflops = r.bound_tflops;
    p.achieved_tflops = r.achieved_tflops;
    p.fraction_of_bound = r.fraction;
    p.under_memory_roof = r.under_memory_roof;
  }
  p.bottleneck = p.kernels.front().bottleneck;
  p.rule = p.kernels.front().rule;
  p.advice = p.kernels.front().advice;
  return p;
}

}  // namespace assay::tune
