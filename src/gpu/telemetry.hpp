#pragma once
// GPU state around one case: a background thread polls NVML (never CUDA) while the case
// runs, and the verdict says whether the case was measured on a stable, unshared GPU.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/results.hpp"
#include "gpu/nvml.hpp"

namespace assay::gpu {

// Names of the clock-event reason bits set in `mask`, lowest bit first ("sw_power_cap", ...);
// an unknown bit is named by its value ("0x200").
std::vector<std::string> clock_event_reason_names(std::uint64_t mask);
// The inverse, for a record that keeps the names.
std::uint64_t clock_event_mask(const std::vector<std::string>& names);

// The reasons that make a measurement unstable: power cap, hardware slowdown, thermal
// slowdown (software and hardware) and the power brake. GPU idle, application clocks, sync
// boost and display clock settings are not.
inline constexpr std::uint64_t kUnstableClockEvents = nvml::kSwPowerCap | nvml::kHwSlowdown |
                                                      nvml::kSwThermalSlowdown | nvml::kHwThermalSlowdown |
                                                      nvml::kHwPowerBrakeSlowdown;

// Which of the processes NVML lists are not this run's own (`own_pids`). Where NVML reports
// PIDs of another PID namespace (a container on older drivers), no own PID is listed: one
// entry that is not visible here is then presumed to be ours.
std::vector<nvml::GpuProcess> other_processes(const std::vector<nvml::GpuProcess>& listed,
                                              const std::vector<unsigned>& own_pids);

// "pid 4242 python (512 MiB)", the form of TelemetryRecord::other_processes.
std::string describe_process(const nvml::GpuProcess& p);

struct StabilityVerdict {
  bool unstable = false;
  std::vector<std::string> reasons;  // "clock event: sw_power_cap", "other process: pid 4242 ..."
};

// The rule: unstable when any reason of kUnstableClockEvents was seen or another compute
// process was on the GPU.
StabilityVerdict judge_stability(std::uint64_t reasons_seen, const std::vector<std::string>& other_processes);

class TelemetryMonitor {
 public:
  // `gpu_uuid` as DeviceRecord::uuid has it. `own_pids`: processes of this run besides this
  // one (a worker running the case) that are not "other processes".
  explicit TelemetryMonitor(const std::string& gpu_uuid,
                            std::chrono::milliseconds period = std::chrono::milliseconds(20),
                            std::vector<unsigned> own_pids = {},
                            const nvml::Library& lib = nvml::system_library());
  ~TelemetryMonitor();
  TelemetryMonitor(const TelemetryMonitor&) = delete;
  TelemetryMonitor& operator=(const TelemetryMonitor&) = delete;

  // Polls once now, then every period until stop(). A second start() begins a new record.
  void start();
  // Polls once more, stops the thread and returns what was seen since start(). Without NVML
  // (or without a GPU UUID) the record has source "unavailable: <why>" and no polls.
  TelemetryRecord stop();

 private:
  void poll();
  void run();

  std::string uuid_;
  std::chrono::milliseconds period_;
  std::vector<unsigned> own_pids_;
  const nvml::Library& lib_;
  nvml::Device device_ = nullptr;
  std::string unavailable_;

  // Written only by the polling thread while it runs; read after it is joined.
  TelemetryRecord rec_;
  std::uint64_t reasons_seen_ = 0;
  std::map<unsigned, nvml::GpuProcess> others_;

  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
};

}  // namespace assay::gpu
