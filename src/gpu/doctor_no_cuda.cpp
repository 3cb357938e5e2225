// CPU-only builds: there is no device to examine.
#include "core/error.hpp"
#include "gpu/doctor.hpp"

namespace assay::gpu {

namespace {
constexpr const char* kNoCuda = "no CUDA device (this assay was built without CUDA)";
}

DoctorReport run_doctor(int) { throw SkipError(kNoCuda); }

std::string doctor_summary_line(int) { return std::string("doctor: skipped: ") + kNoCuda; }

}  // namespace assay::gpu
