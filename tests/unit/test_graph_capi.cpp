// The lazy engine's C API (include/assay/lazy_c.h, libassay_lazy.so): every failure is -1 and a
// message, never an exception or a crash across the boundary.
#include <gtest/gtest.h>

#include <assay/lazy_c.h>

#include <cmath>
#include <string>
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
