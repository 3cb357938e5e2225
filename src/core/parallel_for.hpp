#pragma once
// Splits [0, n) into contiguous chunks over the machine's hardware threads. Used by the
// CPU reference and the CPU backend; no work-stealing is needed for their even loops.
#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace assay {

inline unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

template <class Fn>  // fn(begin, end)
void parallel_for(std::size_t n, Fn&& fn, std::size_t min_chunk = 1) {
  const std::size_t threads =
      std::min<std::size_t>(hardware_threads(), std::max<std::size_t>(1, n / std::max<std::size_t>(1, min_chunk)));
  if (threads <= 1) {
    fn(std::size_t{0}, n);
    return;
  }
  std::vector<std::jthread> pool;
  const std::size_t chunk = (n + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t b = t * chunk, e = std::min(n, b + chunk);
    if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
}

}  // namespace assay
