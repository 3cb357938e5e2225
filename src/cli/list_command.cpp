#include <iostream>

#include "backends/backend.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "measure/executor.hpp"
#include "workloads/workload.hpp"

namespace assay::cli {

Action add_list_command(CLI::App& app) {
  (void)app;
  return []() -> int {
    std::cout << "workloads:\n";
    for (const Workload* w : all_workloads()) {
      std::string params, dtypes;
      for (const auto& p : w->param_names())
        params += (params.empty() ? "" : ", ") + (w->param_optional(p) ? "[" + p + "]" : p);
      for (DType d : w->dtypes()) dtypes += (dtypes.empty() ? "" : ", ") + std::string(dtype_name(d));
      std::cout << "  " << w->name() << "  (" << params << "; " << dtypes << ")  " << w->description() << "\n";
    }
    std::cout << "backends:\n";
    for (const Backend* b : all_backends()) {
      const std::string why = b->unavailable_reason();
      const std::string version = b->library_version();
      std::cout << "  " << b->name() << "  [" << (b->target() == Target::cuda ? "cuda" : b->target() == Target::cpu ? "cpu" : "adapter") << "]  "
                << b->description() << (version.empty() ? "" : " " + version)
                << (why.empty() ? "" : "  (unavailable: " + why + ")") << "\n";
    }
    std::cout << "devices:\n  cpu  host CPU\n";
    std::string why;
    const int n = measure::cuda_devices(&why);
    if (n == 0) std::cout << "  no CUDA device: " << why << "\n";
    for (int i = 0; i < n; ++i) {
      const auto ex = measure::make_cuda_executor(i);
      const auto& d = ex->device();
      std::cout << "  " << i << "  " << d.name << "  " << sm_name(d.compute_capability) << ", " << d.sm_count << " SMs, "
                << (d.memory_bytes >> 20) << " MiB, L2 " << (d.l2_bytes >> 20) << " MiB, max SM clock "
                << d.max_sm_clock_mhz << " MHz, driver " << d.driver_version << ", runtime " << d.runtime_version
                << ", " << d.uuid << "\n";
    }
    return 0;
  };
}

}  // namespace assay::cli
