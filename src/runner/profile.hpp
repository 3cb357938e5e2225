#pragma once
// assay profile (docs/profile.md): each case's worker once more, under Nsight Compute. ncu
// profiles only the kernels launched inside the window the case opens around its calls
// (`--profile-from-start off`; verify::Subject::profile), in every process of the case (an
// adapter's too), with the caches flushed before each kernel (cold, as assay measures) and the
// GPU's clocks left as they are (`--clock-control none`: assay never changes a card's
// settings). Its log is read into the case's profile block (tune/profile_summary.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "tune/ncu_table.hpp"
#include "verify/resolved_case.hpp"

namespace assay::runner {

struct ProfileOptions {
  std::string ncu;                     // the profiler's path
  std::string tool;                    // "ncu 2025.3.1.0"
  std::string clock_control = "none";  // none | base
  std::uint64_t calls = 3;             // calls of the case inside the window
  double timeout_s = 600;              // one case under the profiler
  std::string log_dir;                 // keep each case's raw ncu log there (empty: removed)
  const tune::MetricTable* metrics = nullptr;
};

// ncu from $ASSAY_NCU, else PATH, else /usr/local/cuda/bin/ncu; empty when there is none.
// A set $ASSAY_NCU that is not an executable is an InputError naming it.
std::string find_ncu();
// "ncu 2025.3.1.0" from `ncu --version`; "ncu (version unknown)" when it says nothing readable.
std::string ncu_tool_name(const std::string& ncu);

// The case's worker under the profiler (a WorkerProgram wrapper), its log read into the
// record's profile block. A case that did not end ok keeps its record, ncu's own errors added to
// its reason; an ok case whose log holds no kernel, or cannot be read, becomes `error` naming why.
// With p.log_dir, the raw log is kept there as <case id, flattened>.csv.
CaseRecord profile_case(const verify::ResolvedCase& rc, const ProfileOptions& p, const DeviceRecord& device);

}  // namespace assay::runner
