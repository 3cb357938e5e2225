#include "measure/cpu_sampler.hpp"

#include <chrono>

namespace assay::measure {

Sample CpuSampler::sample() {
  const auto t0 = std::chrono::steady_clock::now();
  call_();
  const auto t1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double, std::nano>(t1 - t0).count(), 0};
}

}  // namespace assay::measure
