// The doctor's checks that need no CUDA: verdict rules on telemetry, NVML device state, the
// driver/runtime pair, MPS and tools. doctor_cuda.cpp adds the device and the load test.
#include "gpu/doctor.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gpu/telemetry.hpp"

namespace assay::gpu {

namespace fs = std::filesystem;

namespace {

// Thresholds (docs/doctor.md).
constexpr double kClockPassRatio = 0.95;  // SM clock under load / max clock
constexpr double kClockWarnRatio = 0.80;
constexpr int kTemperatureWarnC = 80;
constexpr int kTemperatureFailC = 90;
constexpr double kPowerWarnRatio = 0.90;  // power draw / enforced limit

DoctorCheck check(const std::string& name, Verdict v, const std::string& detail) { return {name, v, detail}; }

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

std::string fixed0(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

struct MpsState {
  bool present = false;
  std::string detail;
};

// The MPS daemons name themselves nvidia-cuda-mps-control / -server (comm keeps 15 chars).
int mps_daemon_pid() {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string pid = e.path().filename().string();
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    std::ifstream comm(e.path() / "comm");
    std::string name;
    if (std::getline(comm, name) && name.rfind("nvidia-cuda-mps", 0) == 0) return std::stoi(pid);
  }
  return 0;
}

MpsState detect_mps() {
  const char* env = std::getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::string dir = env && *env ? env : "/tmp/nvidia-mps";
  if (const int pid = mps_daemon_pid())
    return {true, "MPS daemon running (pid " + std::to_string(pid) + "), pipe directory " + dir};
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    return {true, "MPS pipe directory " + dir + " exists" +
                      (env && *env ? " (CUDA_MPS_PIPE_DIRECTORY)" : "") + "; no daemon seen in this PID namespace"};
  return {false, "absent (no daemon, no pipe directory " + dir + ")"};
}

std::optional<std::pair<int, int>> major_minor(const std::string& v) {
  int major = 0, minor = 0;
  if (std::sscanf(v.c_str(), "%d.%d", &major, &minor) != 2) return std::nullopt;
  return std::make_pair(major, minor);
}

}  // namespace

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::warn: return "warn";
    case Verdict::fail: return "fail";
  }
  return "fail";
}

const std::vector<std::string>& doctor_check_names() {
  static const std::vector<std::string> names = {
      "other processes", "sm clock", "temperature", "power", "clock events", "nvml", "ecc", "memory retirement",
      "persistence mode", "driver vs runtime", "mps", "ncu", "compute-sanitizer"};
  return names;
}

Verdict overall_verdict(const std::vector<DoctorCheck>& checks) {
  Verdict worst = Verdict::pass;
  for (const auto& c : checks) worst = std::max(worst, c.verdict);
  return worst;
}

int doctor_exit_code(const std::vector<DoctorCheck>& checks) {
  return overall_verdict(checks) == Verdict::fail ? 1 : 0;
}

std::vector<DoctorCheck> telemetry_checks(const TelemetryRecord& t, int max_sm_clock_mhz, double probe_sm_clock_mhz,
                                          bool under_load) {
  std::vector<DoctorCheck> out;
  const bool nvml = t.source == "nvml" && t.polls > 0;
  const std::string none = nvml ? "not reported by NVML" : (t.source.empty() ? "unavailable" : t.source);

  if (!nvml) out.push_back(check("other processes", Verdict::warn, none));
  else if (t.process_reads == 0) out.push_back(check("other processes", Verdict::warn, "NVML cannot list processes"));
  else if (t.other_processes.empty()) out.push_back(check("other processes", Verdict::pass, "none"));
  else out.push_back(check("other processes", Verdict::fail, join(t.other_processes, "; ")));

  const std::string max = std::to_string(max_sm_clock_mhz);
  if (!under_load) {
    out.push_back(t.sm_clock_end_mhz > 0
                      ? check("sm clock", Verdict::pass,
                              std::to_string(t.sm_clock_end_mhz) + "/" + max + " MHz at idle (judged under load only)")
                      : check("sm clock", Verdict::warn, none));
  } else {
    std::vector<std::string> seen;
    double lowest = 0;
    if (t.sm_clock_min_mhz > 0) {
      lowest = t.sm_clock_min_mhz;
      seen.push_back("NVML min " + std::to_string(t.sm_clock_min_mhz) + " MHz");
    }
    if (probe_sm_clock_mhz > 0) {
      lowest = lowest > 0 ? std::min(lowest, probe_sm_clock_mhz) : probe_sm_clock_mhz;
      seen.push_back("clock probe " + fixed0(probe_sm_clock_mhz) + " MHz");
    }
    if (lowest <= 0 || max_sm_clock_mhz <= 0) {
      out.push_back(check("sm clock", Verdict::warn, "no SM clock reading under load (" + none + ")"));
    } else {
      const double ratio = lowest / max_sm_clock_mhz;
      const Verdict v = ratio >= kClockPassRatio ? Verdict::pass : ratio >= kClockWarnRatio ? Verdict::warn : Verdict::fail;
      out.push_back(check("sm clock", v,
                          join(seen, ", ") + " under load, max " + max + " MHz (" + fixed0(100 * ratio) + "%)"));
    }
  }

  if (!nvml || t.temperature_max_c <= 0) {
    out.push_back(check("temperature", Verdict::warn, none));
  } else {
    const int c = t.temperature_max_c;
    const Verdict v = c >= kTemperatureFailC ? Verdict::fail : c >= kTemperatureWarnC ? Verdict::warn : Verdict::pass;
    out.push_back(check("temperature", v, std::to_string(c) + " C"));
  }

  if (!nvml || t.power_limit_w <= 0 || t.power_reads == 0) {
    out.push_back(check("power", Verdict::warn, nvml ? "no reading of the draw or the limit" : none));
  } else {
    const double ratio = t.power_max_w / t.power_limit_w;
    out.push_back(check("power", ratio >= kPowerWarnRatio ? Verdict::warn : Verdict::pass,
                        fixed0(t.power_max_w) + "/" + fixed0(t.power_limit_w) + " W (" + fixed0(100 * ratio) + "%)"));
  }

  if (!nvml || t.reason_reads == 0) {
    out.push_back(check("clock events", Verdict::warn, nvml ? "NVML cannot read them" : none));
  } else {
    const StabilityVerdict s = judge_stability(clock_event_mask(t.clock_event_reasons), {});
    if (s.unstable) out.push_back(check("clock events", Verdict::fail, join(t.clock_event_reasons, ", ")));
    else if (t.clock_event_reasons.empty()) out.push_back(check("clock events", Verdict::pass, "none"));
    else out.push_back(check("clock events", Verdict::pass, join(t.clock_event_reasons, ", ") + " (not throttling)"));
  }
  return out;
}

std::vector<DoctorCheck> device_state_checks(const std::string& gpu_uuid, const nvml::Library& lib) {
  std::vector<DoctorCheck> out;
  std::string why;
  std::optional<nvml::Device> dev;
  if (!lib.available()) {
    why = lib.source();
    out.push_back(check("nvml", Verdict::warn, why + " (no telemetry, no device state)"));
  } else {
    dev = lib.device_by_uuid(gpu_uuid, &why);
    const auto driver = lib.driver_version();
    out.push_back(dev ? check("nvml", Verdict::pass, "available, driver " + driver.value_or("unknown"))
                      : check("nvml", Verdict::warn, "no NVML device for " + gpu_uuid + ": " + why));
    if (!dev) why = "unavailable: " + why;
  }
  if (!dev) {
    for (const char* name : {"ecc", "memory retirement", "persistence mode"}) out.push_back(check(name, Verdict::warn, why));
    return out;
  }

  if (const auto ecc = lib.ecc_enabled(*dev, &why))
    out.push_back(*ecc ? check("ecc", Verdict::pass, "on")
                       : check("ecc", Verdict::warn, "off (memory errors go undetected)"));
  else out.push_back(check("ecc", Verdict::warn, "unavailable: " + why));

  if (const auto m = lib.memory_retirement(*dev, &why)) {
    const std::string counts = m->kind + ": " + std::to_string(m->corrected) + " correctable, " +
                               std::to_string(m->uncorrected) + " uncorrectable";
    if (m->failed) out.push_back(check("memory retirement", Verdict::fail, counts + ", a remap FAILED (service the GPU)"));
    else if (m->pending) out.push_back(check("memory retirement", Verdict::warn, counts + ", pending until the next GPU reset"));
    else out.push_back(check("memory retirement", Verdict::pass, counts));
  } else {
    out.push_back(check("memory retirement", Verdict::warn, "unavailable: " + why));
  }

  if (const auto pm = lib.persistence_mode(*dev, &why))
    out.push_back(*pm ? check("persistence mode", Verdict::pass, "on")
                      : check("persistence mode", Verdict::warn,
                              "off: the driver may reinitialize the GPU between runs (nvidia-smi -pm 1)"));
  else out.push_back(check("persistence mode", Verdict::warn, "unavailable: " + why));
  return out;
}

DoctorCheck driver_runtime_check(const std::string& driver_cuda, const std::string& runtime_cuda,
                                 const std::string& nvidia_driver) {
  const auto d = major_minor(driver_cuda), r = major_minor(runtime_cuda);
  const std::string detail = "driver supports CUDA " + driver_cuda + (nvidia_driver.empty() ? "" : " (" + nvidia_driver + ")") +
                             ", runtime " + runtime_cuda;
  if (!d || !r) return check("driver vs runtime", Verdict::warn, detail + ": not comparable");
  if (*d < *r) return check("driver vs runtime", Verdict::fail, detail + ": the driver is older than the runtime");
  return check("driver vs runtime", Verdict::pass, detail);
}

DoctorCheck mps_check() {
  const MpsState m = detect_mps();
  return check("mps", m.present ? Verdict::warn : Verdict::pass,
               m.present ? m.detail + ": CUDA clients share the GPU through MPS" : m.detail);
}

DoctorCheck tool_check(const std::string& tool) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::string p = path;
    for (std::size_t start = 0, end; start <= p.size(); start = end + 1) {
      end = p.find(':', start);
      if (end == std::string::npos) end = p.size();
      if (end > start) dirs.push_back(p.substr(start, end - start));
    }
  }
  dirs.push_back("/usr/local/cuda/bin");
  for (const auto& d : dirs) {
    const std::string candidate = d + "/" + tool;
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return check(tool, Verdict::pass, candidate);
  }
  return check(tool, Verdict::warn, "not found on PATH or in /usr/local/cuda/bin");
}

std::string doctor_summary_line(const DeviceRecord& d, const nvml::Library& lib) {
  TelemetryMonitor monitor(d.uuid, std::chrono::milliseconds(20), {}, lib);
  monitor.start();
  const TelemetryRecord t = monitor.stop();
  std::optional<nvml::Device> dev = lib.device_by_uuid(d.uuid);
  int max_clock = d.max_sm_clock_mhz;
  if (dev)
    if (const auto m = lib.max_clock_mhz(*dev, nvml::Clock::sm)) max_clock = static_cast<int>(*m);

  std::vector<DoctorCheck> checks = telemetry_checks(t, max_clock, 0, false);
  for (auto& c : device_state_checks(d.uuid, lib)) checks.push_back(std::move(c));
  checks.push_back(driver_runtime_check(d.driver_version, d.runtime_version, lib.driver_version().value_or("")));
  checks.push_back(mps_check());

  std::string facts;
  if (t.source == "nvml" && t.polls > 0) {
    facts = "SM " + std::to_string(t.sm_clock_end_mhz) + "/" + std::to_string(max_clock) + " MHz, " +
            std::to_string(t.temperature_max_c) + " C, " + fixed0(t.power_max_w) + "/" + fixed0(t.power_limit_w) +
            " W, " +
            (t.process_reads == 0      ? std::string("processes not listed")
             : t.other_processes.empty() ? std::string("no other processes")
                                         : std::to_string(t.other_processes.size()) + " other process(es)");
  } else {
    facts = "NVML " + t.source;
  }
  std::vector<std::string> notes;
  for (const auto& c : checks)
    if (c.verdict != Verdict::pass && c.detail.find("unavailable") == std::string::npos) notes.push_back(c.name + " " + verdict_name(c.verdict) + ": " + c.detail);
  return "doctor: " + d.name + ": " + verdict_name(overall_verdict(checks)) + " (" + facts + ")" +
         (notes.empty() ? "" : "; " + join(notes, "; "));
}

std::map<std::string, std::string> gpu_environment(const std::string& gpu_uuid, const nvml::Library& lib) {
  std::map<std::string, std::string> env;
  env["nvml"] = lib.available() ? "available" : lib.source();
  const MpsState mps = detect_mps();
  env["mps"] = mps.present ? "present: " + mps.detail : "absent";
  std::string why;
  const auto driver = lib.driver_version(&why);
  env["nvidia_driver"] = driver ? *driver : "unknown: " + why;
  if (gpu_uuid.empty()) return env;
  const auto dev = lib.device_by_uuid(gpu_uuid, &why);
  const auto on_off = [&](std::optional<bool> v) { return v ? (*v ? "on" : "off") : "unknown: " + why; };
  env["persistence_mode"] = dev ? on_off(lib.persistence_mode(*dev, &why)) : "unknown: " + why;
  env["ecc"] = dev ? on_off(lib.ecc_enabled(*dev, &why)) : "unknown: " + why;
  return env;
}

}  // namespace assay::gpu
