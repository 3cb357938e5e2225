#include "runner/execute.hpp"

#include <memory>
#include <optional>

#include "backends/external_backend.hpp"
#include "core/error.hpp"
#include "gpu/telemetry.hpp"
#include "verify/adapter_subject.hpp"
#include "verify/case_protocol.hpp"
#include "verify/in_process_subject.hpp"

namespace assay::runner {

namespace {

std::unique_ptr<verify::Subject> subject_for(const verify::ResolvedCase& rc, const Backend& backend, Executors& ex) {
  switch (backend.target()) {
    case Target::external:
      return std::make_unique<verify::AdapterSubject>(static_cast<const ExternalBackend&>(backend), rc.device,
                                                      rc.adapter_timeout_s, rc.method, rc.criterion,
                                                      !rc.check_only && rc.profile_calls == 0);
    case Target::cuda:
      return std::make_unique<verify::InProcessSubject>(backend, *ex.cuda);
    case Target::cpu:
      break;
  }
  return std::make_unique<verify::InProcessSubject>(backend, *ex.cpu);
}

}  // namespace

CaseRecord execute_case(const verify::ResolvedCase& rc, Executors& ex) {
  CaseRecord rec = verify::planned_record(rc);
  const Backend& backend = *find_backend(rc.runner_backend());
  if (backend.target() != Target::cpu) rec.device_index = ex.index;
  // NVML watches the GPU while an in-process GPU case runs. Adapter cases are not watched:
  // their own process on the GPU would read as "another process".
  std::optional<gpu::TelemetryMonitor> monitor;
  if (backend.target() == Target::cuda && ex.cuda_ok) {
    monitor.emplace(ex.device.uuid);
    monitor->start();
  }
  try {
    if (backend.target() == Target::cuda && !ex.cuda) throw SkipError(ex.cuda_skip.empty() ? "no CUDA executor" : ex.cuda_skip);
    const auto subject = subject_for(rc, backend, ex);
    // The device whose peak rates the case's figures are judged against.
    const DeviceRecord& device = backend.target() == Target::cpu    ? ex.cpu->device()
                                 : backend.target() == Target::cuda ? ex.cuda->device()
                                                                    : ex.device;
    verify::run_case_protocol(rc, *subject, device, rec);
  } catch (const SkipError& e) {
    rec.status = CaseStatus::skipped;
    rec.reason = e.what();
  } catch (const DeviceFault& e) {
    rec.status = CaseStatus::crashed;
    rec.reason = e.what();
  } catch (const std::exception& e) {
    rec.status = CaseStatus::error;
    rec.reason = e.what();
  }
  if (monitor) rec.telemetry = monitor->stop();
  return rec;
}

}  // namespace assay::runner
