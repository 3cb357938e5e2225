#pragma once
// A sampler takes one timed sample of the code under test, by one method (cold, hot,
// graph, host, cpu). The measurement loop (measure_loop.hpp) decides how many.
#include <cstdint>
#include <optional>
#include <string>

namespace assay::measure {

struct Sample {
  double ns = 0;            // time per call
  double sm_clock_mhz = 0;  // SM clock while the sample ran; 0 when the sampler cannot tell
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string mode() const = 0;
  virtual void warmup_call() = 0;  // one untimed call, synchronous
  virtual Sample sample() = 0;
  virtual std::uint64_t calls_per_sample() const { return 1; }
  virtual std::uint64_t input_sets() const { return 1; }
  virtual std::uint64_t l2_flush_bytes() const { return 0; }
  // kL2FlushClean when the flush left L2 without dirty lines; empty otherwise (measure/method.hpp).
  virtual std::string l2_flush() const { return ""; }
  // The clock against which throttled samples are judged; 0: no clock probe.
  virtual double reference_sm_clock_mhz() const { return 0; }
  // The device's energy counter in joules (any origin; only differences count); nullopt when
  // it cannot be read (no GPU, no NVML, a board without the counter).
  virtual std::optional<double> energy_counter_j() { return std::nullopt; }
  // The GPU idle this sampler keeps between samples (0: none kept), and how many samples so far
  // came after a longer idle because the host was late.
  virtual double sample_gap_us() const { return 0; }
  virtual std::uint64_t gap_overruns() const { return 0; }
};

}  // namespace assay::measure
