#pragma once
// Everything a GPU sampler needs on one device: the stream, the L2 flush buffer, the
// release flag of the blocking kernel, and the clock probes. One per run and device.
#include <cuda_runtime.h>

#include "core/results.hpp"
#include "gpu/timing_kernels.hpp"

namespace assay::gpu {

class DeviceContext {
 public:
  explicit DeviceContext(int index);
  ~DeviceContext();
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  const DeviceRecord& record() const { return record_; }
  cudaStream_t stream() const { return stream_; }
  std::uint64_t l2_flush_bytes() const { return flush_bytes_; }
  std::uint64_t free_memory() const;

  // Overwrites (memset) or reads (clean) a buffer of max(2 x L2, 64 MiB), so the next kernel finds none of
  // its data there; clean also leaves no dirty line for it to write back.
  void enqueue_l2_flush();
  void set_l2_flush_clean(bool clean) { flush_clean_ = clean; }
  bool l2_flush_clean() const { return flush_clean_; }
  // Holds the stream until release(); call release() after enqueueing the measured work.
  // With a sample gap set, also until that long after the end of the last sample.
  void enqueue_block();
  void release();
  // Probe `slot` (0 or 1) measures the SM clock at this point of the stream; probe 1 marks
  // the end of a sample (for the gap).
  void enqueue_clock_probe(int slot);
  // After the stream is synchronized: throws if the blocking kernel timed out, counts the
  // sample if it overran the gap, and returns the mean SM clock of the two probes in MHz (0 if
  // a probe saw no timer tick).
  double finish_sample();
  // The GPU idle kept from the end of one sample to the next one's start (0: none); setting it
  // starts afresh: no gap before the next sample, no overruns counted.
  void set_sample_gap_ns(std::uint64_t ns);
  std::uint64_t sample_gap_ns() const { return gap_ns_; }
  // Samples since set_sample_gap_ns whose host work outlasted the gap.
  std::uint64_t gap_overruns() const { return gap_overruns_; }

 private:
  DeviceRecord record_;
  cudaStream_t stream_ = nullptr;
  void* flush_ = nullptr;
  std::uint64_t flush_bytes_ = 0;
  bool flush_clean_ = false;
  unsigned* flush_sink_ = nullptr;  // device memory the read flush never writes in practice
  int* release_host_ = nullptr;  // mapped pinned memory: the host writes, the kernel polls
  int* release_dev_ = nullptr;
  BlockState* block_state_ = nullptr;  // device memory
  std::uint64_t gap_ns_ = 0;
  std::uint64_t gap_overruns_ = 0;
  ClockProbe* probes_ = nullptr; // device memory, 2 slots
};

}  // namespace assay::gpu
