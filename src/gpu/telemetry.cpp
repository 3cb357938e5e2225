#include "gpu/telemetry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace assay::gpu {

namespace {

struct ReasonName {
  std::uint64_t bit;
  const char* name;
};
constexpr ReasonName kReasonNames[] = {
    {nvml::kGpuIdle, "gpu_idle"},
    {nvml::kApplicationsClocksSetting, "applications_clocks_setting"},
    {nvml::kSwPowerCap, "sw_power_cap"},
    {nvml::kHwSlowdown, "hw_slowdown"},
    {nvml::kSyncBoost, "sync_boost"},
    {nvml::kSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvml::kHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvml::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvml::kDisplayClockSetting, "display_clock_setting"},
};

const char* reason_name(std::uint64_t bit) {
  for (const auto& r : kReasonNames)
    if (r.bit == bit) return r.name;
  return nullptr;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// A minimum that ignores the 0 of "not read yet".
void keep_min(int& m, int v) { m = m == 0 ? v : std::min(m, v); }

}  // namespace

std::vector<std::string> clock_event_reason_names(std::uint64_t mask) {
  std::vector<std::string> out;
  for (int i = 0; i < 64; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    if (!(mask & bit)) continue;
    const char* name = reason_name(bit);
    out.push_back(name ? name : hex(bit));
  }
  return out;
}

std::uint64_t clock_event_mask(const std::vector<std::string>& names) {
  std::uint64_t mask = 0;
  for (const auto& name : names) {
    for (const auto& r : kReasonNames)
      if (name == r.name) mask |= r.bit;
    if (name.rfind("0x", 0) == 0) mask |= std::stoull(name, nullptr, 16);
  }
  return mask;
}

std::vector<nvml::GpuProcess> other_processes(const std::vector<nvml::GpuProcess>& listed,
                                              const std::vector<unsigned>& own_pids) {
  const auto own = [&](unsigned pid) { return std::find(own_pids.begin(), own_pids.end(), pid) != own_pids.end(); };
  const bool own_listed = std::any_of(listed.begin(), listed.end(), [&](const auto& p) { return own(p.pid); });
  bool presumed_own_taken = own_listed;
  std::vector<nvml::GpuProcess> out;
  for (const auto& p : listed) {
    if (own(p.pid)) continue;
    if (!p.visible_here && !presumed_own_taken) {
      presumed_own_taken = true;
      continue;
    }
    out.push_back(p);
  }
  return out;
}

std::string describe_process(const nvml::GpuProcess& p) {
  std::string s = "pid " + std::to_string(p.pid) + " " + (p.name.empty() ? "?" : p.name);
  if (!p.visible_here) s += " [not in this PID namespace]";
  return s + " (" + std::to_string(p.used_bytes >> 20) + " MiB)";
}

StabilityVerdict judge_stability(std::uint64_t reasons_seen, const std::vector<std::string>& other_processes) {
  StabilityVerdict v;
  for (const auto& name : clock_event_reason_names(reasons_seen & kUnstableClockEvents))
    v.reasons.push_back("clock event: " + name);
  for (const auto& p : other_processes) v.reasons.push_back("other process: " + p);
  v.unstable = !v.reasons.empty();
  return v;
}

TelemetryMonitor::TelemetryMonitor(const std::string& gpu_uuid, std::chrono::milliseconds period,
                                   std::vector<unsigned> own_pids, const nvml::Library& lib)
    : uuid_(gpu_uuid), period_(period), own_pids_(std::move(own_pids)), lib_(lib) {
  own_pids_.push_back(static_cast<unsigned>(getpid()));
  if (!lib_.available()) {
    unavailable_ = lib_.source();
  } else if (uuid_.empty()) {
    unavailable_ = "unavailable: no GPU UUID";
  } else {
    std::string why;
    const auto d = lib_.device_by_uuid(uuid_, &why);
    if (d) device_ = *d;
    else unavailable_ = "unavailable: " + why;
  }
}

TelemetryMonitor::~TelemetryMonitor() {
  if (thread_.joinable()) stop();
}

void TelemetryMonitor::start() {
  if (thread_.joinable()) stop();
  rec_ = TelemetryRecord{};
  reasons_seen_ = 0;
  others_.clear();
  if (!unavailable_.empty()) return;
  if (const auto limit = lib_.power_limit_w(device_)) rec_.power_limit_w = *limit;
  stopping_ = false;
  poll();  // the start values, before the case begins
  thread_ = std::thread([this] { run(); });
}

void TelemetryMonitor::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stopping_; })) {
    lock.unlock();
    poll();
    lock.lock();
  }
}

void TelemetryMonitor::poll() {
  if (const auto sm = lib_.clock_mhz(device_, nvml::Clock::sm)) {
    const int v = static_cast<int>(*sm);
    if (rec_.polls == 0) rec_.sm_clock_start_mhz = v;
    rec_.sm_clock_end_mhz = v;
    keep_min(rec_.sm_clock_min_mhz, v);
  }
  if (const auto mem = lib_.clock_mhz(device_, nvml::Clock::memory)) {
    const int v = static_cast<int>(*mem);
    if (rec_.polls == 0) rec_.mem_clock_start_mhz = v;
    rec_.mem_clock_end_mhz = v;
    keep_min(rec_.mem_clock_min_mhz, v);
  }
  if (const auto t = lib_.temperature_c(device_))
    rec_.temperature_max_c = std::max(rec_.temperature_max_c, static_cast<int>(*t));
  if (const auto p = lib_.power_w(device_)) {
    rec_.power_max_w = std::max(rec_.power_max_w, *p);
    ++rec_.power_reads;
  }
  if (const auto r = lib_.clock_event_reasons(device_)) {
    reasons_seen_ |= *r;
    ++rec_.reason_reads;
  }
  if (const auto procs = lib_.compute_processes(device_)) {
    ++rec_.process_reads;
    for (const auto& p : other_processes(*procs, own_pids_)) {
      auto& seen = others_[p.pid];
      const std::uint64_t most = std::max(seen.used_bytes, p.used_bytes);
      seen = p;
      seen.used_bytes = most;
    }
  }
  ++rec_.polls;
}

TelemetryRecord TelemetryMonitor::stop() {
  if (!unavailable_.empty()) {
    TelemetryRecord r;
    r.source = unavailable_;
    return r;
  }
  if (thread_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
    poll();  // the end values, after the case
  }
  TelemetryRecord r = rec_;
  r.source = "nvml";
  r.clock_event_reasons = clock_event_reason_names(reasons_seen_);
  for (const auto& [pid, p] : others_) r.other_processes.push_back(describe_process(p));
  const StabilityVerdict v = judge_stability(reasons_seen_, r.other_processes);
  r.unstable = v.unstable;
  r.unstable_reasons = v.reasons;
  return r;
}

}  // namespace assay::gpu
