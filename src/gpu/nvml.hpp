#pragma once
// NVML, opened at run time (libnvidia-ml.so.1; nvml.h is not on the build machines), with
// only the entry points assay reads. Where the library or an entry point is missing, a query
// returns nullopt with the reason.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace assay::gpu::nvml {

inline constexpr const char* kLibrary = "libnvidia-ml.so.1";

// Clock-event ("throttle") reason bits, as nvml.h defines nvmlClocksEventReason*.
enum ClockEventReason : std::uint64_t {
  kGpuIdle = 0x1,
  kApplicationsClocksSetting = 0x2,
  kSwPowerCap = 0x4,
  kHwSlowdown = 0x8,
  kSyncBoost = 0x10,
  kSwThermalSlowdown = 0x20,
  kHwThermalSlowdown = 0x40,
  kHwPowerBrakeSlowdown = 0x80,
  kDisplayClockSetting = 0x100,
};

enum class Clock : int { sm = 1, memory = 2 };  // nvmlClockType_t

struct DeviceHandle;  // nvmlDevice_t points to one of these; NVML owns it
using Device = DeviceHandle*;

struct GpuProcess {
  unsigned pid = 0;
  std::string name;            // from NVML, else /proc/<pid>/comm, else empty
  std::uint64_t used_bytes = 0;
  bool visible_here = false;   // /proc/<pid> exists in this PID namespace
};

// Retired pages (before Ampere) or remapped rows (Ampere and later) of the device memory.
struct MemoryRetirement {
  std::string kind;  // "remapped rows" or "retired pages"
  unsigned corrected = 0, uncorrected = 0;  // rows (correctable/uncorrectable) or pages (sbe/dbe)
  bool pending = false;  // a remap waits for the next GPU reset
  bool failed = false;   // a remap failed
};

class Library {
 public:
  // Opens `soname`; a missing library leaves the object unavailable.
  explicit Library(const std::string& soname = kLibrary);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool available() const { return why_.empty(); }
  // "" when available, else why not ("libnvidia-ml.so.1: cannot open shared object file ...").
  const std::string& unavailable_reason() const { return why_; }
  // "nvml", or "unavailable: <why>" (the form of TelemetryRecord::source).
  std::string source() const { return available() ? "nvml" : "unavailable: " + why_; }

  // The device of a CUDA UUID as assay records it ("GPU-xxxxxxxx-...").
  std::optional<Device> device_by_uuid(const std::string& uuid, std::string* why = nullptr) const;

  std::optional<unsigned> clock_mhz(Device d, Clock c, std::string* why = nullptr) const;
  std::optional<unsigned> max_clock_mhz(Device d, Clock c, std::string* why = nullptr) const;
  std::optional<unsigned> temperature_c(Device d, std::string* why = nullptr) const;
  std::optional<double> power_w(Device d, std::string* why = nullptr) const;
  std::optional<double> power_limit_w(Device d, std::string* why = nullptr) const;
  // The board's energy counter since the driver loaded, in joules (NVML counts millijoules).
  std::optional<double> total_energy_j(Device d, std::string* why = nullptr) const;
  std::optional<std::uint64_t> clock_event_reasons(Device d, std::string* why = nullptr) const;
  std::optional<std::vector<GpuProcess>> compute_processes(Device d, std::string* why = nullptr) const;
  std::optional<bool> persistence_mode(Device d, std::string* why = nullptr) const;
  std::optional<bool> ecc_enabled(Device d, std::string* why = nullptr) const;  // current mode
  std::optional<MemoryRetirement> memory_retirement(Device d, std::string* why = nullptr) const;
  std::optional<std::string> driver_version(std::string* why = nullptr) const;

 private:
  struct Api;
  bool fail(int status, const char* what, std::string* why) const;
  template <class T, class Call>
  std::optional<T> read(bool has_entry, const char* what, std::string* why, Call call) const;
  std::string name_of(unsigned pid) const;

  void* lib_ = nullptr;
  Api* api_ = nullptr;
  bool initialized_ = false;
  std::string soname_;
  std::string why_;
};

// The process-wide library: opened and initialized once (nvmlInit can take long), shared by
// every monitor and check.
const Library& system_library();

}  // namespace assay::gpu::nvml
