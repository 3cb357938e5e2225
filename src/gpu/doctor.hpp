#pragma once
// `assay doctor`: is this GPU fit to benchmark on, and why not. The checks are data (name,
// verdict, detail); docs/doctor.md gives each one's meaning and thresholds.
#include <map>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "gpu/nvml.hpp"

namespace assay::gpu {

enum class Verdict { pass, warn, fail };  // ordered: the worst verdict wins
std::string verdict_name(Verdict v);       // "pass" | "warn" | "fail"

struct DoctorCheck {
  std::string name;
  Verdict verdict = Verdict::pass;
  std::string detail;
};

struct DoctorReport {
  DeviceRecord device;
  std::vector<DoctorCheck> checks;
};

// Every check, in the order `assay doctor` prints them.
const std::vector<std::string>& doctor_check_names();

Verdict overall_verdict(const std::vector<DoctorCheck>& checks);  // pass when empty
// 1 when any check failed (the GPU is unfit), else 0 (warnings allowed).
int doctor_exit_code(const std::vector<DoctorCheck>& checks);

// Checks on what a TelemetryMonitor saw. `under_load`: the record was taken while a busy
// kernel ran, so the SM clock is judged against `max_sm_clock_mhz` (with assay's own clock
// probe, `probe_sm_clock_mhz`, when > 0); at idle the clock is only reported.
std::vector<DoctorCheck> telemetry_checks(const TelemetryRecord& t, int max_sm_clock_mhz, double probe_sm_clock_mhz,
                                          bool under_load);
// NVML availability, ECC, retired pages / remapped rows, persistence mode of the device.
std::vector<DoctorCheck> device_state_checks(const std::string& gpu_uuid, const nvml::Library& lib);
// The driver must support the CUDA runtime assay was built with ("13.0" >= "12.8").
DoctorCheck driver_runtime_check(const std::string& driver_cuda, const std::string& runtime_cuda,
                                 const std::string& nvidia_driver);
// MPS: a control daemon running, or its pipe directory present (CUDA_MPS_PIPE_DIRECTORY or
// the default /tmp/nvidia-mps): CUDA clients then share the GPU through the MPS server.
DoctorCheck mps_check();
// A tool found on PATH, else in /usr/local/cuda/bin: pass with its path, else warn.
DoctorCheck tool_check(const std::string& tool);

// Runs every check on CUDA device `device`, including ~300 ms of a busy kernel on all SMs.
// Throws SkipError("no CUDA device (...)") where there is none.
DoctorReport run_doctor(int device);

// One line without the load test, for `assay run` to print first, e.g.
// "doctor: NVIDIA H100 80GB HBM3: pass (SM 1980/1980 MHz, 38 C, 102/700 W, no other processes)".
// Never throws; "doctor: skipped: no CUDA device (...)" where there is none.
std::string doctor_summary_line(int device);
// The same from the parts, for a device already described (no CUDA calls).
std::string doctor_summary_line(const DeviceRecord& d, const nvml::Library& lib);

// GPU settings for RunRecord::environment: "nvml", "nvidia_driver", "mps" and, with a GPU UUID,
// "persistence_mode" and "ecc". No CUDA calls.
std::map<std::string, std::string> gpu_environment(const std::string& gpu_uuid = "",
                                                   const nvml::Library& lib = nvml::system_library());

}  // namespace assay::gpu
