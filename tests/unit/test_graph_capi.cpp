// The lazy engine's C API (include/assay/lazy_c.h, libassay_lazy.so): every failure is -1 and a
// message, never an exception or a crash across the boundary.
#include <gtest/gtest.h>

#include <assay/lazy_c.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

TEST(LazyCApi, RecordsRunsAndReportsErrorsWithoutThrowing) {
  assay_lazy_graph* g = assay_lazy_graph_new();
  ASSERT_NE(g, nullptr);
  const int64_t shape[] = {3, 3};
  const int64_t x = assay_lazy_factory(g, "ones", shape, 2, 0, 0, "remote_accelerator:0", "model.py:1");
  ASSERT_GE(x, 0) << assay_lazy_last_error();
  const int64_t mm = assay_lazy_matmul(g, x, x, "model.py:2");
  const int64_t r = assay_lazy_elementwise(g, "relu", mm, -1, "model.py:3");
  const int64_t s = assay_lazy_reduce(g, "sum", r, nullptr, 0, 0, "model.py:4");
  ASSERT_GE(s, 0) << assay_lazy_last_error();
  EXPECT_EQ(assay_lazy_node_count(g), 4);
  EXPECT_EQ(assay_lazy_executions(g), 0);
  EXPECT_STREQ(assay_lazy_op(g, s), "sum");
  int64_t in[4];
  ASSERT_EQ(assay_lazy_inputs(g, mm, in), 2);
  EXPECT_EQ(in[0], x);
  float v = 0;
  ASSERT_EQ(assay_lazy_materialize(g, s, &v, 1), 0) << assay_lazy_last_error();
  EXPECT_EQ(v, 27.0f);  // each of 9 elements is 3
  EXPECT_EQ(assay_lazy_executions(g), 1);
  EXPECT_EQ(assay_lazy_evaluated_nodes(g), 4);

  // A mismatch is -1 with the op, the shapes and the site in the message.
  const int64_t other[] = {4};
  const int64_t y = assay_lazy_factory(g, "zeros", other, 1, 0, 0, "remote_accelerator:0", "model.py:5");
  EXPECT_EQ(assay_lazy_elementwise(g, "add", x, y, "model.py:6"), -1);
  const std::string msg = assay_lazy_last_error();
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
  EXPECT_NE(msg.find("model.py:6"), std::string::npos) << msg;
  // Bad handles and arguments, never a crash.
  EXPECT_EQ(assay_lazy_elementwise(g, "relu", 999, -1, "m"), -1);
  EXPECT_NE(std::string(assay_lazy_last_error()).find("not in this graph"), std::string::npos);
  EXPECT_EQ(assay_lazy_elementwise(g, "frobnicate", x, -1, "m"), -1);
  EXPECT_EQ(assay_lazy_factory(g, "zeros", shape, 9, 0, 0, "cpu", "m"), -1);
  EXPECT_EQ(assay_lazy_factory(g, "zeros", shape, 2, 17, 0, "cpu", "m"), -1);
  EXPECT_EQ(assay_lazy_elementwise(nullptr, "relu", 0, -1, "m"), -1);
  EXPECT_EQ(assay_lazy_materialize(g, s, &v, 2), -1);  // room for the wrong count
  // Nothing that failed was recorded.
  EXPECT_EQ(assay_lazy_node_count(g), 5);
  // The dump asks for the room it needs.
  const int64_t need = assay_lazy_dump(g, s, nullptr, 0);
  ASSERT_GT(need, 0);
  std::vector<char> buf(static_cast<std::size_t>(need) + 1);
  EXPECT_EQ(assay_lazy_dump(g, s, buf.data(), need + 1), need);
  EXPECT_NE(std::string(buf.data()).find("after passes"), std::string::npos);
  assay_lazy_graph_free(g);
}

// Misuse from C: each is -1 (or a no-op) with a message naming it, never a crash or a wrong value.
TEST(LazyCApi, MisuseIsAnErrorNeverACrash) {
  const auto error_has = [](const char* part) {
    return std::string(assay_lazy_last_error()).find(part) != std::string::npos;
  };
  const int64_t shape[] = {3};
  assay_lazy_graph* g1 = assay_lazy_graph_new();
  assay_lazy_graph* g2 = assay_lazy_graph_new();
  const int64_t a = assay_lazy_factory(g1, "ones", shape, 1, 0, 0, "cpu", "m:1");
  ASSERT_GE(assay_lazy_factory(g2, "zeros", shape, 1, 0, 0, "cpu", "m:2"), 0);
  // An id of g1 in g2, where an index 0 exists too: it had added g2's zeros to themselves.
  EXPECT_EQ(assay_lazy_elementwise(g2, "add", a, a, "m:3"), -1);
  EXPECT_TRUE(error_has("not in this graph")) << assay_lazy_last_error();
  // Null output buffers.
  float v[3];
  EXPECT_EQ(assay_lazy_shape(g1, a, nullptr), -1);
  EXPECT_TRUE(error_has("no output buffer")) << assay_lazy_last_error();
  const int64_t n = assay_lazy_elementwise(g1, "neg", a, -1, "m:4");
  EXPECT_EQ(assay_lazy_inputs(g1, n, nullptr), -1);
  EXPECT_EQ(assay_lazy_materialize(g1, a, nullptr, 3), -1);
  ASSERT_EQ(assay_lazy_materialize(g1, n, v, 3), 0) << assay_lazy_last_error();
  EXPECT_EQ(v[2], -1.0f);
  // A step past end - start: one element (end - start + step - 1 overflowed to none).
  const int64_t ten[] = {10};
  const int64_t r = assay_lazy_factory(g1, "zeros", ten, 1, 0, 0, "cpu", "m:5");
  const int64_t sl = assay_lazy_slice(g1, r, 0, 3, 10, INT64_MAX - 1, "m:6");
  int64_t out_shape[8];
  ASSERT_EQ(assay_lazy_shape(g1, sl, out_shape), 1) << assay_lazy_last_error();
  EXPECT_EQ(out_shape[0], 1);
  // A randn seed a double cannot hold exactly, or none at all; i64 values beyond float32's 2^24.
  EXPECT_EQ(assay_lazy_factory(g1, "randn", shape, 1, 0, std::nan(""), "cpu", "m:7"), -1);
  EXPECT_EQ(assay_lazy_factory(g1, "randn", shape, 1, 0, 1e300, "cpu", "m:7"), -1);
  EXPECT_TRUE(error_has("seed")) << assay_lazy_last_error();
  EXPECT_EQ(assay_lazy_factory(g1, "full", shape, 1, 3, 16777217.0, "cpu", "m:8"), -1);
  const double big[] = {1, 2, 1e10};
  EXPECT_EQ(assay_lazy_from_host(g1, shape, 1, 3, big, "cpu", "m:9"), -1);
  EXPECT_TRUE(error_has("2^24")) << assay_lazy_last_error();
  // A negative size is named before anything is sized by it.
  const int64_t negative[] = {-2};
  EXPECT_EQ(assay_lazy_from_host(g1, negative, 1, 0, big, "cpu", "m:10"), -1);
  EXPECT_TRUE(error_has("size -2 of dim 0")) << assay_lazy_last_error();
  // A freed handle: refused by name, also by the getters and a second free.
  assay_lazy_graph_free(g2);
  EXPECT_EQ(assay_lazy_node_count(g2), -1);
  EXPECT_TRUE(error_has("is not live")) << assay_lazy_last_error();
  EXPECT_EQ(assay_lazy_elementwise(g2, "relu", 0, -1, "m"), -1);
  EXPECT_EQ(assay_lazy_executions(g2), -1);
  assay_lazy_graph_free(g2);
  EXPECT_TRUE(error_has("is not live")) << assay_lazy_last_error();
  assay_lazy_graph_free(g1);
}

// Calls from several threads on one graph are serialised: none is lost or corrupts another.
TEST(LazyCApi, ThreadsRecordingIntoOneGraph) {
  assay_lazy_graph* g = assay_lazy_graph_new();
  const int64_t shape[] = {2};
  const int64_t x = assay_lazy_factory(g, "ones", shape, 1, 0, 0, "cpu", "m:1");
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      int64_t y = x;
      for (int i = 0; i < 5000; ++i) y = assay_lazy_elementwise(g, "add", y, x, "m:2");
      float v[2];
      ASSERT_EQ(assay_lazy_materialize(g, y, v, 2), 0) << assay_lazy_last_error();
      EXPECT_EQ(v[0], 5001.0f);
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(assay_lazy_node_count(g), 1 + 4 * 5000);
  assay_lazy_graph_free(g);
}
