// The doctor on a CUDA device: the device, and the SM clock under ~300 ms of a busy kernel,
// read both by NVML (a TelemetryMonitor) and by assay's own %globaltimer/clock64 probe.
#include <cuda_runtime.h>

#include <chrono>
#include <thread>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/doctor.hpp"
#include "gpu/telemetry.hpp"
#include "gpu/timing_kernels.hpp"

namespace assay::gpu {

namespace {

// The load: a spin kernel of 4 blocks per SM for 300 ms; the clock probe and the monitor run
// in its middle, after the clocks have had 50 ms to ramp up from idle.
constexpr auto kLoad = std::chrono::milliseconds(300);
constexpr auto kRamp = std::chrono::milliseconds(50);
constexpr auto kWatch = std::chrono::milliseconds(200);
constexpr unsigned long long kProbeWindowNs = 100'000'000;

struct LoadResult {
  TelemetryRecord telemetry;
  double probe_mhz = 0;
};

LoadResult run_load(const DeviceRecord& d, const nvml::Library& lib) {
  ASSAY_CUDA(cudaSetDevice(d.index));
  cudaStream_t spin = nullptr, probe = nullptr;
  ClockProbe* out = nullptr;
  ASSAY_CUDA(cudaStreamCreateWithFlags(&spin, cudaStreamNonBlocking));
  ASSAY_CUDA(cudaStreamCreateWithFlags(&probe, cudaStreamNonBlocking));
  ASSAY_CUDA(cudaMalloc(&out, sizeof(ClockProbe)));
  LoadResult r;
  TelemetryMonitor monitor(d.uuid, std::chrono::milliseconds(20), {}, lib);
  const auto load_ns = static_cast<unsigned long long>(std::chrono::nanoseconds(kLoad).count());
  ASSAY_CUDA(launch_spin_kernel(load_ns, 4 * d.sm_count, spin));
  std::this_thread::sleep_for(kRamp);
  ASSAY_CUDA(launch_clock_probe(out, kProbeWindowNs, probe));
  monitor.start();
  std::this_thread::sleep_for(kWatch);
  r.telemetry = monitor.stop();
  ASSAY_CUDA(cudaDeviceSynchronize());
  ClockProbe host{};
  ASSAY_CUDA(cudaMemcpy(&host, out, sizeof host, cudaMemcpyDeviceToHost));
  if (host.ns > 0) r.probe_mhz = 1e3 * static_cast<double>(host.cycles) / static_cast<double>(host.ns);
  cudaFree(out);
  cudaStreamDestroy(probe);
  cudaStreamDestroy(spin);
  return r;
}

DeviceRecord device_or_skip(int device) {
  std::string why;
  const int n = cuda_device_count(&why);
  if (n == 0) throw SkipError("no CUDA device (" + why + ")");
  if (device < 0 || device >= n)
    throw InputError("--device " + std::to_string(device) + ": this machine has " + std::to_string(n) +
                     " CUDA device(s), numbered from 0");
  return query_device(device);
}

}  // namespace

DoctorReport run_doctor(int device) {
  const nvml::Library& lib = nvml::system_library();
  DoctorReport report;
  std::string why;
  bool driver_too_old = false;
  if (cuda_device_count(&why, &driver_too_old) == 0 && driver_too_old) {
    // Not a machine without a GPU (skipped) but one whose driver cannot run this build: a fail.
    report.device.index = device;
    report.device.name = "?";
    report.checks.push_back({"driver vs runtime", Verdict::fail, why});
    return report;
  }
  report.device = device_or_skip(device);
  const DeviceRecord& d = report.device;
  int max_clock = d.max_sm_clock_mhz;
  if (const auto dev = lib.device_by_uuid(d.uuid))
    if (const auto m = lib.max_clock_mhz(*dev, nvml::Clock::sm)) max_clock = static_cast<int>(*m);

  const LoadResult load = run_load(d, lib);
  report.checks = telemetry_checks(load.telemetry, max_clock, load.probe_mhz, true);
  for (auto& c : device_state_checks(d.uuid, lib)) report.checks.push_back(std::move(c));
  report.checks.push_back(driver_runtime_check(d.driver_version, d.runtime_version, lib.driver_version().value_or("")));
  report.checks.push_back(mps_check());
  report.checks.push_back(tool_check("ncu"));
  report.checks.push_back(tool_check("compute-sanitizer"));
  return report;
}

std::string doctor_summary_line(int device) {
  try {
    return doctor_summary_line(device_or_skip(device), nvml::system_library());
  } catch (const SkipError& e) {
    return std::string("doctor: skipped: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("doctor: error: ") + e.what();
  }
}

}  // namespace assay::gpu
