#pragma once
// The method of a measurement (DESIGN.md "Measuring"): how each sample is taken, as opposed to
// how many are taken (measure/criterion.hpp). A resolved case carries one Method; the sampler
// and the measurement loop read it and nothing else.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace assay::measure {

// cold: L2 flushed, blocking kernel, events around one call, clock probes;
// hot: back-to-back batches; graph: calls captured in a CUDA graph; host: wall clock around
// call + synchronize. CPU backends are always timed by the host clock, whatever the mode.
enum class Mode { cold, hot, graph, host };

std::string_view mode_name(Mode mode);
std::optional<Mode> parse_mode(std::string_view name);  // nullopt for an unknown name

// How cold mode empties L2 before a sample (docs/measurement-notes.md, "The flush leaves dirty
// lines"). memset: writes a buffer of twice L2, as nvbench and triton.testing.do_bench do, which
// leaves L2 full of dirty lines that the timed call pays to write back as it evicts them. clean:
// reads that buffer instead, so what the previous sample wrote is written back during the flush
// and the timed call finds only clean lines.
enum class L2Flush { memset, clean };
std::string_view l2_flush_name(L2Flush flush);
std::optional<L2Flush> parse_l2_flush(std::string_view name);  // nullopt for an unknown name

// Samples whose SM clock is under threshold x the device's maximum are dropped, and the loop
// idles backoff_s before the next one.
struct ThrottlePolicy {
  double threshold = 0.75;
  double backoff_s = 0.05;
};

// Untimed calls before the first sample: at least `calls` and at least `min_s` seconds.
struct Warmup {
  std::uint64_t calls = 3;
  double min_s = 0.05;
};

struct Method {
  Mode mode = Mode::cold;
  Warmup warmup;
  ThrottlePolicy throttle;
  // GPU idle from the end of one timed sample to the start of the next, the same for every
  // in-process backend; 0: whatever the host takes (under a power cap that idle sets the clock).
  double gap_us = 0;
  // Idle before the warm-up, so that a case does not inherit the last case's heat.
  double cooldown_s = 0;
  std::uint64_t graph_calls = 0;  // calls per graph in graph mode; 0: chosen from a probe call
  L2Flush l2_flush = L2Flush::memset;  // cold mode's flush (in-process backends)
};

}  // namespace assay::measure
