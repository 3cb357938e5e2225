// The recording cost per op (issue 31 item 6 reports it): 100k elementwise ops recorded into one
// graph. Printed, not asserted tightly: a shared CI host's timing is noisy.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "graph/tensor.hpp"

using namespace assay::graph;

TEST(GraphRecording, CostPerOp) {
  constexpr int kOps = 100000;
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    Graph g;
    LazyTensor x = randn(g, {64, 2048}, 1);
    const LazyTensor b = randn(g, {2048}, 2);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kOps / 2; ++i) x = relu(add(x, b));
    const auto t1 = std::chrono::steady_clock::now();
    ASSERT_EQ(g.size(), static_cast<std::size_t>(kOps + 2));
    best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / kOps);
  }
  std::printf("graph recording: %.1f ns/op (best of 3, %d ops, sizeof(Node) = %zu bytes)\n", best, kOps, sizeof(Node));
  EXPECT_LT(best, 20000.0);  // only catches something pathological (a per-op O(n) scan)
}
