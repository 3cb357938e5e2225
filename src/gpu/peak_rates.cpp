// Peak rates from FLOP per clock per SM (NVIDIA architecture whitepapers) times the max SM
// clock read from the device. NVIDIA's datasheets quote the tensor peaks at the boost clock
// (H100 SXM: 989 TFLOP/s dense fp16 and 1979 dense fp8 at 1830 MHz); we use the device's own
// max clock and say so.
#include <cstdlib>
#include <string>

#include "gpu/device_info.hpp"

namespace assay::gpu {

double peak_tflops(const DeviceRecord& d, const std::string& dtype, std::string* source) {
  if (d.kind != "cuda" || d.sm_count == 0 || d.max_sm_clock_mhz == 0) return 0;
  const std::string& cc = d.compute_capability;
  double per_sm = 0;  // FLOP per clock per SM, dense, fp32 accumulation
  if (dtype == "f32") {
    // FP32 lanes x 2 FLOP per FFMA: 64 lanes per SM on sm_80, 128 on sm_86/89/90.
    per_sm = cc == "8.0" ? 128 : cc == "8.6" || cc == "8.9" || cc == "9.0" ? 256 : 0;
  } else if (dtype == "f16" || dtype == "bf16") {
    per_sm = cc == "9.0" ? 4096 : cc == "8.0" ? 2048 : 0;  // H100 / A100 tensor cores
  } else if (dtype == "f8e4m3") {
    per_sm = cc == "9.0" ? 8192 : 0;  // H100: twice its bf16 rate; A100 has no fp8
  }
  if (per_sm == 0) return 0;
  if (source)
    *source = "SMs x " + std::to_string(static_cast<int>(per_sm)) + " FLOP/clk x max SM clock " +
              std::to_string(d.max_sm_clock_mhz) + " MHz (" + sm_name(cc) + ")";
  return d.sm_count * per_sm * d.max_sm_clock_mhz * 1e6 / 1e12;
}

}  // namespace assay::gpu
