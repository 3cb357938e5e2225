// Telemetry and doctor logic without a GPU: clock-event names, the unstable rule, who counts
// as another process, the doctor's verdicts, and everything where NVML is missing.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "gpu/doctor.hpp"
#include "gpu/nvml.hpp"
#include "gpu/telemetry.hpp"
#include "scoped_env.hpp"

using namespace assay;
using namespace assay::gpu;
namespace fs = std::filesystem;

namespace {

nvml::GpuProcess proc(unsigned pid, bool visible, const std::string& name = "p", std::uint64_t bytes = 0) {
  nvml::GpuProcess p;
  p.pid = pid;
  p.visible_here = visible;
  p.name = name;
  p.used_bytes = bytes;
  return p;
}

std::vector<unsigned> pids(const std::vector<nvml::GpuProcess>& ps) {
  std::vector<unsigned> out;
  for (const auto& p : ps) out.push_back(p.pid);
  return out;
}

TelemetryRecord idle_record() {
  TelemetryRecord t;
  t.source = "nvml";
  t.polls = 12;
  t.sm_clock_start_mhz = t.sm_clock_end_mhz = t.sm_clock_min_mhz = 1980;
  t.mem_clock_start_mhz = t.mem_clock_end_mhz = t.mem_clock_min_mhz = 2619;
  t.temperature_max_c = 38;
  t.power_max_w = 102;
  t.power_limit_w = 700;
  t.power_reads = t.reason_reads = t.process_reads = t.polls;
  return t;
}

const DoctorCheck& find(const std::vector<DoctorCheck>& checks, const std::string& name) {
  for (const auto& c : checks)
    if (c.name == name) return c;
  throw std::runtime_error("no check " + name);
}

const nvml::Library& missing_nvml() {
  static const nvml::Library lib("libdoes-not-exist.so");
  return lib;
}

}  // namespace

TEST(ClockEvents, NamesEveryBitInOrderAndUnknownBitsByValue) {
  EXPECT_TRUE(clock_event_reason_names(0).empty());
  EXPECT_EQ(clock_event_reason_names(0x1 | 0x4), (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(clock_event_reason_names(0x1ff),
            (std::vector<std::string>{"gpu_idle", "applications_clocks_setting", "sw_power_cap", "hw_slowdown",
                                      "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                      "hw_power_brake_slowdown", "display_clock_setting"}));
  EXPECT_EQ(clock_event_reason_names(0x8 | 0x200), (std::vector<std::string>{"hw_slowdown", "0x200"}));
}

TEST(ClockEvents, MaskIsTheInverseOfTheNames) {
  for (const std::uint64_t mask : {0x0ull, 0x1ull, 0x24ull, 0x1ffull, 0x10200ull, 0x8000000000000000ull})
    EXPECT_EQ(clock_event_mask(clock_event_reason_names(mask)), mask) << mask;
}

TEST(Stability, IdleApplicationClocksSyncBoostAndDisplayAreStable) {
  const auto v = judge_stability(nvml::kGpuIdle | nvml::kApplicationsClocksSetting | nvml::kSyncBoost |
                                     nvml::kDisplayClockSetting,
                                 {});
  EXPECT_FALSE(v.unstable);
  EXPECT_TRUE(v.reasons.empty());
}

TEST(Stability, EachPowerThermalAndHardwareReasonAloneIsUnstable) {
  const std::pair<std::uint64_t, const char*> cases[] = {
      {nvml::kSwPowerCap, "sw_power_cap"},
      {nvml::kHwSlowdown, "hw_slowdown"},
      {nvml::kSwThermalSlowdown, "sw_thermal_slowdown"},
      {nvml::kHwThermalSlowdown, "hw_thermal_slowdown"},
      {nvml::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"}};
  for (const auto& [bit, name] : cases) {
    const auto v = judge_stability(bit | nvml::kGpuIdle, {});
    EXPECT_TRUE(v.unstable) << name;
    EXPECT_EQ(v.reasons, std::vector<std::string>{std::string("clock event: ") + name});
  }
}

TEST(Stability, AnotherProcessAloneIsUnstableAndReasonsAccumulate) {
  const auto alone = judge_stability(0, {"pid 4242 python (512 MiB)"});
  EXPECT_TRUE(alone.unstable);
  EXPECT_EQ(alone.reasons, std::vector<std::string>{"other process: pid 4242 python (512 MiB)"});
  const auto both = judge_stability(nvml::kSwThermalSlowdown | nvml::kHwSlowdown, {"pid 1 a (0 MiB)", "pid 2 b (0 MiB)"});
  EXPECT_TRUE(both.unstable);
  EXPECT_EQ(both.reasons, (std::vector<std::string>{"clock event: hw_slowdown", "clock event: sw_thermal_slowdown",
                                                    "other process: pid 1 a (0 MiB)", "other process: pid 2 b (0 MiB)"}));
}

TEST(OtherProcesses, OwnPidsAreExcludedAndTheRestKept) {
  const std::vector<nvml::GpuProcess> listed = {proc(100, true), proc(200, true), proc(300, false)};
  EXPECT_EQ(pids(other_processes(listed, {100})), (std::vector<unsigned>{200, 300}));
  EXPECT_EQ(pids(other_processes(listed, {100, 200})), (std::vector<unsigned>{300}));
  EXPECT_TRUE(other_processes({}, {100}).empty());
}

TEST(OtherProcesses, InAnotherPidNamespaceOneInvisibleEntryIsPresumedOurs) {
  // NVML reports host PIDs: our own process is listed, but not under our PID.
  EXPECT_TRUE(other_processes({proc(645400, false)}, {324}).empty());
  EXPECT_EQ(pids(other_processes({proc(645400, false), proc(645999, false)}, {324})), std::vector<unsigned>{645999});
  // A visible process is never presumed ours.
  EXPECT_EQ(pids(other_processes({proc(17, true)}, {324})), std::vector<unsigned>{17});
}

TEST(OtherProcesses, DescribedWithPidNameAndMemory) {
  EXPECT_EQ(describe_process(proc(4242, true, "python", 512ull << 20)), "pid 4242 python (512 MiB)");
  EXPECT_EQ(describe_process(proc(9, false, "", 0)), "pid 9 ? [not in this PID namespace] (0 MiB)");
}

TEST(DoctorVerdict, AnyFailMeansExit1WarningsAreAllowed) {
  using V = Verdict;
  EXPECT_EQ(overall_verdict({}), V::pass);
  EXPECT_EQ(doctor_exit_code({}), 0);
  const std::vector<DoctorCheck> warn = {{"a", V::pass, ""}, {"b", V::warn, ""}};
  EXPECT_EQ(overall_verdict(warn), V::warn);
  EXPECT_EQ(doctor_exit_code(warn), 0);
  const std::vector<DoctorCheck> fail = {{"a", V::pass, ""}, {"b", V::fail, ""}, {"c", V::warn, ""}};
  EXPECT_EQ(overall_verdict(fail), V::fail);
  EXPECT_EQ(doctor_exit_code(fail), 1);
  EXPECT_EQ(verdict_name(V::pass), "pass");
  EXPECT_EQ(verdict_name(V::warn), "warn");
  EXPECT_EQ(verdict_name(V::fail), "fail");
}

// NVML answers the clocks but refuses the power, the reasons or the process list (a container's
// NO_PERMISSION): those checks warn; they had passed on the zeros of quantities never read.
TEST(DoctorChecks, QuantitiesNvmlNeverGaveAreNotPassed) {
  TelemetryRecord t = idle_record();
  t.power_reads = t.reason_reads = t.process_reads = 0;
  const auto checks = telemetry_checks(t, 1980, 1975.4, true);
  EXPECT_EQ(find(checks, "other processes").verdict, Verdict::warn);
  EXPECT_EQ(find(checks, "other processes").detail, "NVML cannot list processes");
  EXPECT_EQ(find(checks, "power").verdict, Verdict::warn);
  EXPECT_EQ(find(checks, "clock events").verdict, Verdict::warn);
  EXPECT_EQ(find(checks, "clock events").detail, "NVML cannot read them");
  EXPECT_EQ(find(checks, "sm clock").verdict, Verdict::pass);  // read: judged as before
}

TEST(DoctorChecks, AHealthyGpuUnderLoadPassesEveryTelemetryCheck) {
  const auto checks = telemetry_checks(idle_record(), 1980, 1975.4, true);
  ASSERT_EQ(checks.size(), 5u);
  for (std::size_t i = 0; i < checks.size(); ++i) {
    EXPECT_EQ(checks[i].name, doctor_check_names()[i]);
    EXPECT_EQ(checks[i].verdict, Verdict::pass) << checks[i].name << ": " << checks[i].detail;
  }
  EXPECT_EQ(find(checks, "sm clock").detail, "NVML min 1980 MHz, clock probe 1975 MHz under load, max 1980 MHz (100%)");
  EXPECT_EQ(find(checks, "power").detail, "102/700 W (15%)");
}

TEST(DoctorChecks, SmClockThresholdsUseTheLowerOfNvmlAndTheProbe) {
  TelemetryRecord t = idle_record();
  EXPECT_EQ(find(telemetry_checks(t, 1980, 1890, true), "sm clock").verdict, Verdict::pass);  // 95.5%
  EXPECT_EQ(find(telemetry_checks(t, 1980, 1700, true), "sm clock").verdict, Verdict::warn);  // 86%
  EXPECT_EQ(find(telemetry_checks(t, 1980, 1500, true), "sm clock").verdict, Verdict::fail);  // 76%
  t.sm_clock_min_mhz = 1500;
  EXPECT_EQ(find(telemetry_checks(t, 1980, 0, true), "sm clock").verdict, Verdict::fail);
  // At idle the clock is reported, never judged.
  t.sm_clock_end_mhz = 345;
  const auto idle = find(telemetry_checks(t, 1980, 0, false), "sm clock");
  EXPECT_EQ(idle.verdict, Verdict::pass);
  EXPECT_EQ(idle.detail, "345/1980 MHz at idle (judged under load only)");
}

TEST(DoctorChecks, TemperaturePowerEventsAndProcessesHaveTheirThresholds) {
  TelemetryRecord t = idle_record();
  t.temperature_max_c = 80;
  t.power_max_w = 640;
  t.clock_event_reasons = {"gpu_idle", "applications_clocks_setting"};
  auto c = telemetry_checks(t, 1980, 0, true);
  EXPECT_EQ(find(c, "temperature").verdict, Verdict::warn);
  EXPECT_EQ(find(c, "power").verdict, Verdict::warn);
  EXPECT_EQ(find(c, "clock events").verdict, Verdict::pass);
  EXPECT_EQ(find(c, "clock events").detail, "gpu_idle, applications_clocks_setting (not throttling)");
  EXPECT_EQ(doctor_exit_code(c), 0);

  t.temperature_max_c = 90;
  t.clock_event_reasons = {"sw_thermal_slowdown"};
  t.other_processes = {"pid 4242 python (512 MiB)"};
  c = telemetry_checks(t, 1980, 0, true);
  EXPECT_EQ(find(c, "temperature").verdict, Verdict::fail);
  EXPECT_EQ(find(c, "clock events").verdict, Verdict::fail);
  EXPECT_EQ(find(c, "other processes").verdict, Verdict::fail);
  EXPECT_EQ(find(c, "other processes").detail, "pid 4242 python (512 MiB)");
  EXPECT_EQ(doctor_exit_code(c), 1);
}

TEST(DoctorChecks, WithoutTelemetryEveryCheckWarnsAndNoneFails) {
  TelemetryRecord t;
  t.source = "unavailable: libnvidia-ml.so.1: cannot open shared object file";
  const auto c = telemetry_checks(t, 1980, 0, true);
  ASSERT_EQ(c.size(), 5u);
  for (const auto& check : c) EXPECT_EQ(check.verdict, Verdict::warn) << check.name;
  EXPECT_NE(find(c, "temperature").detail.find("libnvidia-ml.so.1"), std::string::npos);
  // assay's own clock probe still judges the clock.
  EXPECT_EQ(find(telemetry_checks(t, 1980, 1980, true), "sm clock").verdict, Verdict::pass);
}

TEST(DoctorChecks, TheDriverMustBeAtLeastTheRuntime) {
  EXPECT_EQ(driver_runtime_check("13.0", "13.0", "580.65.06").verdict, Verdict::pass);
  EXPECT_EQ(driver_runtime_check("13.1", "13.0", "").verdict, Verdict::pass);
  EXPECT_EQ(driver_runtime_check("12.9", "13.0", "575.57").verdict, Verdict::fail);
  EXPECT_EQ(driver_runtime_check("12.10", "12.9", "").verdict, Verdict::pass);
  EXPECT_EQ(driver_runtime_check("", "13.0", "").verdict, Verdict::warn);
  EXPECT_EQ(driver_runtime_check("13.0", "13.0", "580.65.06").detail,
            "driver supports CUDA 13.0 (580.65.06), runtime 13.0");
}

TEST(DoctorChecks, MpsIsSeenThroughItsPipeDirectory) {
  const fs::path dir = fs::temp_directory_path() / ("assay-mps-" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    ScopedEnv env("CUDA_MPS_PIPE_DIRECTORY", dir.string());
    const auto c = mps_check();
    EXPECT_EQ(c.name, "mps");
    EXPECT_EQ(c.verdict, Verdict::warn);
    EXPECT_NE(c.detail.find(dir.string()), std::string::npos) << c.detail;
    EXPECT_EQ(gpu_environment("", missing_nvml()).at("mps").rfind("present: ", 0), 0u);
  }
  fs::remove_all(dir);
  ScopedEnv env("CUDA_MPS_PIPE_DIRECTORY", dir.string());  // gone now
  const auto c = mps_check();
  EXPECT_EQ(c.verdict, Verdict::pass) << c.detail;
  EXPECT_EQ(gpu_environment("", missing_nvml()).at("mps"), "absent");
}

TEST(DoctorChecks, ToolsAreFoundOnPathOnly) {
  const fs::path dir = fs::temp_directory_path() / ("assay-tools-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path tool = dir / "assay-fake-tool";
  std::ofstream(tool) << "#!/bin/sh\n";
  chmod(tool.c_str(), 0755);
  {
    ScopedEnv env("PATH", "/nonexistent:" + dir.string());
    const auto found = tool_check("assay-fake-tool");
    EXPECT_EQ(found.verdict, Verdict::pass);
    EXPECT_EQ(found.detail, tool.string());
    const auto missing = tool_check("assay-no-such-tool");
    EXPECT_EQ(missing.name, "assay-no-such-tool");
    EXPECT_EQ(missing.verdict, Verdict::warn);
  }
  fs::remove_all(dir);
}

TEST(NvmlMissing, EveryQuerySaysUnavailableAndNothingFails) {
  const nvml::Library& lib = missing_nvml();
  EXPECT_FALSE(lib.available());
  EXPECT_EQ(lib.source().rfind("unavailable: ", 0), 0u);
  EXPECT_NE(lib.source().find("libdoes-not-exist.so"), std::string::npos);
  std::string why;
  EXPECT_FALSE(lib.device_by_uuid("GPU-00000000-0000-0000-0000-000000000000", &why));
  EXPECT_EQ(why, lib.unavailable_reason());
  why.clear();
  EXPECT_FALSE(lib.driver_version(&why));
  EXPECT_FALSE(why.empty());
  const auto d = nvml::Device{};
  EXPECT_FALSE(lib.clock_mhz(d, nvml::Clock::sm));
  EXPECT_FALSE(lib.max_clock_mhz(d, nvml::Clock::memory));
  EXPECT_FALSE(lib.temperature_c(d));
  EXPECT_FALSE(lib.power_w(d));
  EXPECT_FALSE(lib.power_limit_w(d));
  EXPECT_FALSE(lib.clock_event_reasons(d));
  EXPECT_FALSE(lib.compute_processes(d));
  EXPECT_FALSE(lib.persistence_mode(d));
  EXPECT_FALSE(lib.ecc_enabled(d));
  EXPECT_FALSE(lib.memory_retirement(d));
}

TEST(NvmlMissing, TheMonitorRecordsWhyAndNeverMarksACaseUnstable) {
  TelemetryMonitor m("GPU-00000000-0000-0000-0000-000000000000", std::chrono::milliseconds(1), {}, missing_nvml());
  m.start();
  const TelemetryRecord r = m.stop();
  EXPECT_EQ(r.source, missing_nvml().source());
  EXPECT_EQ(r.polls, 0u);
  EXPECT_FALSE(r.unstable);
  EXPECT_TRUE(r.unstable_reasons.empty());
  EXPECT_EQ(r.sm_clock_min_mhz, 0);
}

TEST(NvmlMissing, AMonitorWithoutAGpuUuidIsUnavailable) {
  TelemetryMonitor m("", std::chrono::milliseconds(1));
  m.start();
  EXPECT_EQ(m.stop().source, nvml::system_library().available() ? "unavailable: no GPU UUID"
                                                                : nvml::system_library().source());
}

TEST(NvmlMissing, DeviceStateChecksWarnAndTheEnvironmentSaysWhy) {
  const auto c = device_state_checks("GPU-00000000-0000-0000-0000-000000000000", missing_nvml());
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].name, "nvml");
  EXPECT_EQ(c[1].name, "ecc");
  EXPECT_EQ(c[2].name, "memory retirement");
  EXPECT_EQ(c[3].name, "persistence mode");
  for (const auto& check : c) EXPECT_EQ(check.verdict, Verdict::warn) << check.name;
  EXPECT_EQ(doctor_exit_code(c), 0);

  const auto env = gpu_environment("GPU-00000000-0000-0000-0000-000000000000", missing_nvml());
  EXPECT_EQ(env.at("nvml"), missing_nvml().source());
  EXPECT_EQ(env.at("nvidia_driver").rfind("unknown: ", 0), 0u);
  EXPECT_EQ(env.at("persistence_mode").rfind("unknown: ", 0), 0u);
  EXPECT_EQ(env.at("ecc").rfind("unknown: ", 0), 0u);
  EXPECT_TRUE(env.count("mps"));
  EXPECT_FALSE(gpu_environment("", missing_nvml()).count("ecc"));
}

TEST(NvmlMissing, TheSummaryLineWarnsAndNamesWhy) {
  DeviceRecord d;
  d.kind = "cuda";
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  d.max_sm_clock_mhz = 1980;
  d.driver_version = "13.0";
  d.runtime_version = "13.0";
  ScopedEnv env("CUDA_MPS_PIPE_DIRECTORY", "/nonexistent/assay-mps");
  const std::string line = doctor_summary_line(d, missing_nvml());
  EXPECT_EQ(line.rfind("doctor: NVIDIA H100 80GB HBM3: warn (NVML " + missing_nvml().source() + ")", 0), 0u) << line;
}

TEST(DoctorCli, WithoutADeviceTheDoctorIsSkippedWithExit2) {
  if (test::have_gpu()) GTEST_SKIP() << "a CUDA device is here: tests/gpu/test_telemetry_gpu.cpp covers it";
  const auto r = test::run_assay("doctor");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("skipped: no CUDA device"), std::string::npos) << r.out;
  const auto j = test::run_assay("doctor --json --device 0");
  EXPECT_EQ(j.code, 2) << j.out;
  EXPECT_NE(j.out.find("\"verdict\": \"skipped\""), std::string::npos) << j.out;
  EXPECT_EQ(doctor_summary_line(0).rfind("doctor: skipped: no CUDA device", 0), 0u);
}
