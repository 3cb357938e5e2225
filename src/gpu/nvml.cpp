#include "gpu/nvml.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <fstream>

namespace assay::gpu::nvml {

namespace {

// The ABI of nvml.h: nvmlReturn_t and every enum are C ints, nvmlDevice_t an opaque pointer.
using Return = int;
constexpr Return kSuccess = 0;
constexpr Return kErrorInsufficientSize = 7;
constexpr int kTemperatureGpu = 0;              // NVML_TEMPERATURE_GPU
constexpr int kFeatureEnabled = 1;              // NVML_FEATURE_ENABLED
constexpr int kRetiredMultipleSingleBitEcc = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
constexpr int kRetiredDoubleBitEcc = 1;          // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR
constexpr unsigned kStringBuffer = 96;           // >= NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE (80)

struct ProcessInfoV3 {  // nvmlProcessInfo_t of nvmlDeviceGetComputeRunningProcesses_v3
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

template <class T>
void resolve(void* lib, T& fn, const char* name) {
  fn = reinterpret_cast<T>(dlsym(lib, name));
}

}  // namespace

struct Library::Api {
  Return (*init)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*handle_by_uuid)(const char*, Device*) = nullptr;
  Return (*clock_info)(Device, int, unsigned*) = nullptr;
  Return (*max_clock_info)(Device, int, unsigned*) = nullptr;
  Return (*temperature)(Device, int, unsigned*) = nullptr;
  Return (*power_usage)(Device, unsigned*) = nullptr;                // mW
  Return (*enforced_power_limit)(Device, unsigned*) = nullptr;       // mW
  Return (*total_energy)(Device, unsigned long long*) = nullptr;     // mJ
  Return (*clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  Return (*compute_processes)(Device, unsigned*, ProcessInfoV3*) = nullptr;
  Return (*process_name)(unsigned, char*, unsigned) = nullptr;
  Return (*persistence_mode)(Device, int*) = nullptr;
  Return (*ecc_mode)(Device, int*, int*) = nullptr;
  Return (*remapped_rows)(Device, unsigned*, unsigned*, unsigned*, unsigned*) = nullptr;
  Return (*retired_pages)(Device, int, unsigned*, unsigned long long*) = nullptr;
  Return (*driver_version)(char*, unsigned) = nullptr;
};

Library::Library(const std::string& soname) : api_(new Api), soname_(soname) {
  lib_ = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    const char* e = dlerror();
    why_ = e ? e : soname + " not found";
    return;
  }
  Api& a = *api_;
  resolve(lib_, a.init, "nvmlInit_v2");
  resolve(lib_, a.shutdown, "nvmlShutdown");
  resolve(lib_, a.error_string, "nvmlErrorString");
  resolve(lib_, a.handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  if (!a.init || !a.shutdown || !a.error_string || !a.handle_by_uuid) {
    why_ = soname + " lacks nvmlInit_v2, nvmlShutdown, nvmlErrorString or nvmlDeviceGetHandleByUUID";
    return;
  }
  resolve(lib_, a.clock_info, "nvmlDeviceGetClockInfo");
  resolve(lib_, a.max_clock_info, "nvmlDeviceGetMaxClockInfo");
  resolve(lib_, a.temperature, "nvmlDeviceGetTemperature");
  resolve(lib_, a.power_usage, "nvmlDeviceGetPowerUsage");
  resolve(lib_, a.enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  resolve(lib_, a.total_energy, "nvmlDeviceGetTotalEnergyConsumption");
  resolve(lib_, a.clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a.clocks_event_reasons) resolve(lib_, a.clocks_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  resolve(lib_, a.compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3");
  resolve(lib_, a.process_name, "nvmlSystemGetProcessName");
  resolve(lib_, a.persistence_mode, "nvmlDeviceGetPersistenceMode");
  resolve(lib_, a.ecc_mode, "nvmlDeviceGetEccMode");
  resolve(lib_, a.remapped_rows, "nvmlDeviceGetRemappedRows");
  resolve(lib_, a.retired_pages, "nvmlDeviceGetRetiredPages");
  resolve(lib_, a.driver_version, "nvmlSystemGetDriverVersion");
  const Return r = a.init();
  if (r != kSuccess) {
    why_ = std::string("nvmlInit_v2: ") + a.error_string(r);
    return;
  }
  initialized_ = true;
}

Library::~Library() {
  if (initialized_) api_->shutdown();
  if (lib_) dlclose(lib_);
  delete api_;
}

bool Library::fail(int status, const char* what, std::string* why) const {
  if (status == kSuccess) return false;
  if (why) *why = std::string(what) + ": " + api_->error_string(status);
  return true;
}

// Checks that the library and the entry point are there, then reads one value through `call`.
template <class T, class Call>
std::optional<T> Library::read(bool has_entry, const char* what, std::string* why, Call call) const {
  if (!available()) {
    if (why) *why = why_;
    return std::nullopt;
  }
  if (!has_entry) {
    if (why) *why = soname_ + " lacks " + what;
    return std::nullopt;
  }
  T v{};
  if (fail(call(v), what, why)) return std::nullopt;
  return v;
}

std::optional<Device> Library::device_by_uuid(const std::string& uuid, std::string* why) const {
  return read<Device>(api_->handle_by_uuid, "nvmlDeviceGetHandleByUUID", why,
                      [&](Device& d) { return api_->handle_by_uuid(uuid.c_str(), &d); });
}

std::optional<unsigned> Library::clock_mhz(Device d, Clock c, std::string* why) const {
  return read<unsigned>(api_->clock_info, "nvmlDeviceGetClockInfo", why,
                        [&](unsigned& v) { return api_->clock_info(d, static_cast<int>(c), &v); });
}

std::optional<unsigned> Library::max_clock_mhz(Device d, Clock c, std::string* why) const {
  return read<unsigned>(api_->max_clock_info, "nvmlDeviceGetMaxClockInfo", why,
                        [&](unsigned& v) { return api_->max_clock_info(d, static_cast<int>(c), &v); });
}

std::optional<unsigned> Library::temperature_c(Device d, std::string* why) const {
  return read<unsigned>(api_->temperature, "nvmlDeviceGetTemperature", why,
                        [&](unsigned& v) { return api_->temperature(d, kTemperatureGpu, &v); });
}

std::optional<double> Library::power_w(Device d, std::string* why) const {
  const auto mw = read<unsigned>(api_->power_usage, "nvmlDeviceGetPowerUsage", why,
                                 [&](unsigned& v) { return api_->power_usage(d, &v); });
  return mw ? std::optional<double>(*mw / 1000.0) : std::nullopt;
}

std::optional<double> Library::power_limit_w(Device d, std::string* why) const {
  const auto mw = read<unsigned>(api_->enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit", why,
                                 [&](unsigned& v) { return api_->enforced_power_limit(d, &v); });
  return mw ? std::optional<double>(*mw / 1000.0) : std::nullopt;
}

std::optional<double> Library::total_energy_j(Device d, std::string* why) const {
  const auto mj = read<unsigned long long>(api_->total_energy, "nvmlDeviceGetTotalEnergyConsumption", why,
                                          [&](unsigned long long& v) { return api_->total_energy(d, &v); });
  return mj ? std::optional<double>(static_cast<double>(*mj) / 1000.0) : std::nullopt;
}

std::optional<std::uint64_t> Library::clock_event_reasons(Device d, std::string* why) const {
  return read<std::uint64_t>(api_->clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons", why,
                             [&](std::uint64_t& v) {
                               unsigned long long r = 0;
                               const Return status = api_->clocks_event_reasons(d, &r);
                               v = r;
                               return status;
                             });
}

std::string Library::name_of(unsigned pid) const {
  char buf[256] = {};
  if (api_->process_name && api_->process_name(pid, buf, sizeof buf) == kSuccess && buf[0]) return buf;
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(comm, name);
  return name;
}

std::optional<std::vector<GpuProcess>> Library::compute_processes(Device d, std::string* why) const {
  std::vector<ProcessInfoV3> infos(8);
  const auto count = read<unsigned>(api_->compute_processes, "nvmlDeviceGetComputeRunningProcesses_v3", why,
                                    [&](unsigned& n) {
                                      for (int attempt = 0;; ++attempt) {  // the list can grow between calls
                                        n = static_cast<unsigned>(infos.size());
                                        const Return r = api_->compute_processes(d, &n, infos.data());
                                        if (r != kErrorInsufficientSize || attempt == 3) return r;
                                        infos.resize(n + 8);
                                      }
                                    });
  if (!count) return std::nullopt;
  std::vector<GpuProcess> out;
  for (unsigned i = 0; i < *count && i < infos.size(); ++i) {
    GpuProcess p;
    p.pid = infos[i].pid;
    // NVML_VALUE_NOT_AVAILABLE (all ones) where the memory is not reported (e.g. under MIG).
    p.used_bytes = infos[i].usedGpuMemory == ~0ull ? 0 : infos[i].usedGpuMemory;
    p.visible_here = access(("/proc/" + std::to_string(p.pid)).c_str(), F_OK) == 0;
    p.name = name_of(p.pid);
    out.push_back(std::move(p));
  }
  return out;
}

std::optional<bool> Library::persistence_mode(Device d, std::string* why) const {
  const auto mode = read<int>(api_->persistence_mode, "nvmlDeviceGetPersistenceMode", why,
                              [&](int& m) { return api_->persistence_mode(d, &m); });
  return mode ? std::optional<bool>(*mode == kFeatureEnabled) : std::nullopt;
}

std::optional<bool> Library::ecc_enabled(Device d, std::string* why) const {
  const auto current = read<int>(api_->ecc_mode, "nvmlDeviceGetEccMode", why, [&](int& m) {
    int pending = 0;
    return api_->ecc_mode(d, &m, &pending);
  });
  return current ? std::optional<bool>(*current == kFeatureEnabled) : std::nullopt;
}

std::optional<MemoryRetirement> Library::memory_retirement(Device d, std::string* why) const {
  if (!available()) {
    if (why) *why = why_;
    return std::nullopt;
  }
  std::string rows_why = soname_ + " lacks nvmlDeviceGetRemappedRows";
  if (api_->remapped_rows) {
    unsigned corrected = 0, uncorrected = 0, pending = 0, failed = 0;
    if (!fail(api_->remapped_rows(d, &corrected, &uncorrected, &pending, &failed), "nvmlDeviceGetRemappedRows",
              &rows_why))
      return MemoryRetirement{"remapped rows", corrected, uncorrected, pending != 0, failed != 0};
  }
  // Before Ampere: retired pages. A count of 0 asks for the number only.
  if (!api_->retired_pages) {
    if (why) *why = rows_why;
    return std::nullopt;
  }
  MemoryRetirement m{"retired pages", 0, 0, false, false};
  for (const int cause : {kRetiredMultipleSingleBitEcc, kRetiredDoubleBitEcc}) {
    unsigned n = 0;
    const Return r = api_->retired_pages(d, cause, &n, nullptr);
    std::string pages_why;
    if (r != kErrorInsufficientSize && fail(r, "nvmlDeviceGetRetiredPages", &pages_why)) {
      if (why) *why = rows_why + "; " + pages_why;
      return std::nullopt;
    }
    (cause == kRetiredDoubleBitEcc ? m.uncorrected : m.corrected) = n;
  }
  return m;
}

std::optional<std::string> Library::driver_version(std::string* why) const {
  char buf[kStringBuffer] = {};
  if (!read<int>(api_->driver_version, "nvmlSystemGetDriverVersion", why,
                 [&](int&) { return api_->driver_version(buf, sizeof buf); }))
    return std::nullopt;
  return std::string(buf);
}

const Library& system_library() {
  static const Library lib;
  return lib;
}

}  // namespace assay::gpu::nvml
