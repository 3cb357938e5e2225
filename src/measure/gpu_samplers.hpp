#pragma once
// The GPU samplers of DESIGN.md "Measuring":
//  cold  - flush L2, block the stream, probe the clock, events around ONE call, probe again;
//  hot   - no flush, events around a batch of back-to-back calls (inputs rotated if they fit in L2);
//  graph - N calls captured in a CUDA graph, events around one replay, time per call = replay / N;
//  host  - wall clock around a call and a stream synchronize (launch overhead included).
#include <cuda_runtime.h>

#include "backends/backend.hpp"
#include "core/results.hpp"
#include "gpu/device_context.hpp"
#include "gpu/nvml.hpp"
#include "measure/sampler.hpp"

namespace assay::measure {

class GpuSampler : public Sampler {
 public:
  GpuSampler(gpu::DeviceContext& ctx, Instance& inst);
  ~GpuSampler() override;
  void warmup_call() override;
  double reference_sm_clock_mhz() const override { return ctx_.record().max_sm_clock_mhz; }
  std::optional<double> energy_counter_j() override;  // NVML's, by the device's UUID
  double sample_gap_us() const override { return static_cast<double>(ctx_.sample_gap_ns()) / 1e3; }
  std::uint64_t gap_overruns() const override { return ctx_.gap_overruns(); }

 protected:
  // Blocks the stream (after the L2 flush, or before it when a gap is kept), probes, records
  // `start`, runs `enqueue`, records `stop`, probes, releases, and returns {ns per call (the events'
  // elapsed time / divide_by), SM clock MHz}.
  template <class Fn>
  Sample timed(Fn&& enqueue, double divide_by);
  // Device time of one call, from a few event-timed calls (to size batches and graphs).
  double probe_call_ns();

  gpu::DeviceContext& ctx_;
  Instance& inst_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  bool flush_before_ = false;
  std::optional<gpu::nvml::Device> nvml_device_;  // looked up on the first energy read
  bool nvml_looked_up_ = false;
};

class ColdSampler final : public GpuSampler {
 public:
  ColdSampler(gpu::DeviceContext& ctx, Instance& inst);
  std::string mode() const override { return "cold"; }
  Sample sample() override;
  std::uint64_t l2_flush_bytes() const override { return ctx_.l2_flush_bytes(); }
  std::string l2_flush() const override { return ctx_.l2_flush_clean() ? std::string(kL2FlushClean) : ""; }
};

class HotSampler final : public GpuSampler {
 public:
  HotSampler(gpu::DeviceContext& ctx, Instance& inst, std::uint64_t device_bytes);
  std::string mode() const override { return "hot"; }
  Sample sample() override;
  std::uint64_t calls_per_sample() const override { return batch_; }
  std::uint64_t input_sets() const override { return sets_; }

 private:
  std::uint64_t batch_ = 1;
  unsigned sets_ = 1;
};

class GraphSampler final : public GpuSampler {
 public:
  GraphSampler(gpu::DeviceContext& ctx, Instance& inst, std::uint64_t device_bytes, std::uint64_t calls);
  ~GraphSampler() override;
  std::string mode() const override { return "graph"; }
  Sample sample() override;
  std::uint64_t calls_per_sample() const override { return calls_; }
  std::uint64_t input_sets() const override { return sets_; }

 private:
  std::uint64_t calls_ = 1;
  unsigned sets_ = 1;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

class HostSampler final : public GpuSampler {
 public:
  using GpuSampler::GpuSampler;
  std::string mode() const override { return "host"; }
  Sample sample() override;
  double reference_sm_clock_mhz() const override { return 0; }
  // Times the host's wall clock without the blocking kernel: no gap is kept (and, finishing no
  // sample through the device context, it counts no overruns).
  double sample_gap_us() const override { return 0; }
};

}  // namespace assay::measure
