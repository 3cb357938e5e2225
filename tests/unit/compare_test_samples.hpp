// Seeded synthetic timing samples for the comparison tests. The generator and the transforms are
// written out (not std::normal_distribution, whose output differs between standard libraries),
// so every platform draws the same samples.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace assay::test {

class SampleSource {
 public:
  explicit SampleSource(std::uint64_t seed) : rng_(seed) {}

  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }  // [0, 1)

  double standard_normal() {  // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  }

  // n log-normal samples around `median` with relative spread `sigma` (GPU timings are
  // right-skewed and their noise scales with the value).
  std::vector<double> lognormal(std::size_t n, double median, double sigma) {
    std::vector<double> v(n);
    for (double& x : v) x = median * std::exp(sigma * standard_normal());
    return v;
  }

 private:
  std::mt19937_64 rng_;
};

// Multiplies `count` samples spread through `v` by `factor` (e.g. a few 3x outliers from a
// context switch or a clock dip).
inline std::vector<double> with_outliers(std::vector<double> v, std::size_t count, double factor) {
  for (std::size_t i = 0; i < count; ++i) v[(i * 7 + 3) % v.size()] *= factor;
  return v;
}

// Throughputs (higher is better) of timings: work / time.
inline std::vector<double> throughputs(const std::vector<double>& times_ns, double work) {
  std::vector<double> v;
  for (double t : times_ns) v.push_back(work / t);
  return v;
}

}  // namespace assay::test
