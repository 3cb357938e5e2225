// Shape and dtype inference at record time, and every error path: the error names the op,
// the shapes and the line that recorded it.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "graph/error.hpp"
#include "graph/tensor.hpp"

using namespace assay::graph;

namespace {

// Runs f, which must throw GraphError; returns its message.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const GraphError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no GraphError";
  return {};
}

// The message names the op, this file and the line the op was recorded at.
void expect_names(const std::string& msg, const std::string& op, int line) {
  EXPECT_NE(msg.find(op + ":"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test_graph_shapes.cpp:" + std::to_string(line)), std::string::npos) << msg;
}

}  // namespace

TEST(GraphShapes, BroadcastingElementwise) {
  Graph g;
  auto a = randn(g, {4, 1, 3}, 1), b = randn(g, {5, 1}, 2);
  EXPECT_EQ(add(a, b).shape(), (Shape{4, 5, 3}));
  EXPECT_EQ(mul(a, full(g, {}, 2.0)).shape(), (Shape{4, 1, 3}));
  EXPECT_EQ(gelu(a, true).shape(), (Shape{4, 1, 3}));
  auto c = cast(ones(g, {5, 3}), ElemType::boolean);
  EXPECT_EQ(c.dtype(), ElemType::boolean);
  EXPECT_EQ(where(c, a, b).shape(), (Shape{4, 5, 3}));
  EXPECT_EQ(cast(a, ElemType::bf16).dtype(), ElemType::bf16);
}

TEST(GraphShapes, LinalgReductionsViews) {
  Graph g;
  auto a = randn(g, {2, 1, 4, 8}, 1), b = randn(g, {3, 8, 5}, 2);
  EXPECT_EQ(matmul(a, b).shape(), (Shape{2, 3, 4, 5}));
  EXPECT_EQ(mm(randn(g, {4, 8}, 3), randn(g, {8, 2}, 4)).shape(), (Shape{4, 2}));
  EXPECT_EQ(bmm(randn(g, {3, 4, 8}, 3), b).shape(), (Shape{3, 4, 5}));
  EXPECT_EQ(linear(a, randn(g, {6, 8}, 5), randn(g, {6}, 6)).shape(), (Shape{2, 1, 4, 6}));
  auto q = randn(g, {2, 4, 7, 8}, 7), k = randn(g, {2, 4, 9, 8}, 8), v = randn(g, {2, 4, 9, 3}, 9);
  EXPECT_EQ(scaled_dot_product_attention(q, k, v, true).shape(), (Shape{2, 4, 7, 3}));
  EXPECT_DOUBLE_EQ(scaled_dot_product_attention(q, k, v).node().attrs.value, 1.0 / std::sqrt(8.0));
  EXPECT_EQ(sum(a).shape(), Shape{});
  EXPECT_EQ(sum(a, {1, -1}).shape(), (Shape{2, 4}));
  EXPECT_EQ(mean(a, {-1}, true).shape(), (Shape{2, 1, 4, 1}));
  EXPECT_EQ(max(a, {0}).shape(), (Shape{1, 4, 8}));
  EXPECT_EQ(softmax(a, -1).shape(), a.shape());
  EXPECT_EQ(layer_norm(a, {4, 8}).shape(), a.shape());
  EXPECT_EQ(reshape(a, {-1, 8}).shape(), (Shape{8, 8}));
  EXPECT_EQ(view(a, {2, 32}).shape(), (Shape{2, 32}));
  EXPECT_EQ(transpose(a, 0, -1).shape(), (Shape{8, 1, 4, 2}));
  EXPECT_EQ(permute(a, {3, 2, 1, 0}).shape(), (Shape{8, 4, 1, 2}));
  EXPECT_EQ(slice(a, 3, 1, 8, 3).shape(), (Shape{2, 1, 4, 3}));     // 1, 4, 7
  EXPECT_EQ(slice(a, 2, -3, 100).shape(), (Shape{2, 1, 3, 8}));     // clamped
  EXPECT_EQ(slice(a, 2, 3, 1).shape(), (Shape{2, 1, 0, 8}));        // empty
  EXPECT_EQ(expand(a, {5, 2, 3, -1, 8}).shape(), (Shape{5, 2, 3, 4, 8}));
}

TEST(GraphShapes, DtypeAndDevice) {
  Graph g;
  auto h = randn(g, {4}, 1, {ElemType::f16});
  EXPECT_EQ(exp(h).dtype(), ElemType::f16);
  auto r = randn(g, {4}, 1, {ElemType::f32, "remote_accelerator:0"});
  EXPECT_EQ(g.device_name(relu(r).node().device), "remote_accelerator:0");
}

TEST(GraphShapes, ErrorsNameOpShapesAndSite) {
  Graph g;
  auto a = randn(g, {2, 3}, 1), b = randn(g, {4}, 2);
  auto h = randn(g, {2, 3}, 3, {ElemType::f16});
  auto m = cast(a, ElemType::boolean);
  auto remote = randn(g, {2, 3}, 4, {ElemType::f32, "remote_accelerator:0"});
  std::string msg;
  msg = error_of([&] { add(a, b); }); expect_names(msg, "add", __LINE__);
  EXPECT_NE(msg.find("[2,3] and [4]"), std::string::npos) << msg;
  msg = error_of([&] { sub(a, h); }); expect_names(msg, "sub", __LINE__);
  EXPECT_NE(msg.find("f32[2,3] and f16[2,3]"), std::string::npos) << msg;
  msg = error_of([&] { mul(a, remote); }); expect_names(msg, "mul", __LINE__);
  EXPECT_NE(msg.find("remote_accelerator:0"), std::string::npos) << msg;
  msg = error_of([&] { relu(m); }); expect_names(msg, "relu", __LINE__);
  msg = error_of([&] { where(a, a, a); }); expect_names(msg, "where", __LINE__);
  msg = error_of([&] { where(m, a, h); }); expect_names(msg, "where", __LINE__);
  msg = error_of([&] { matmul(a, a); }); expect_names(msg, "matmul", __LINE__);
  EXPECT_NE(msg.find("3 vs 2"), std::string::npos) << msg;
  msg = error_of([&] { matmul(a, b); }); expect_names(msg, "matmul", __LINE__);
  msg = error_of([&] { mm(randn(g, {2, 2, 2}, 1), a); }); expect_names(msg, "mm", __LINE__);
  msg = error_of([&] { bmm(randn(g, {2, 2, 3}, 1), randn(g, {3, 3, 2}, 1)); }); expect_names(msg, "bmm", __LINE__);
  msg = error_of([&] { linear(a, randn(g, {4, 2}, 5)); }); expect_names(msg, "linear", __LINE__);
  msg = error_of([&] { linear(a, randn(g, {4, 3}, 5), randn(g, {3}, 6)); }); expect_names(msg, "linear", __LINE__);
  auto q = randn(g, {2, 5, 8}, 7);
  msg = error_of([&] { scaled_dot_product_attention(q, randn(g, {2, 5, 4}, 1), q); });
  expect_names(msg, "scaled_dot_product_attention", __LINE__ - 1);
  msg = error_of([&] { scaled_dot_product_attention(q, q, randn(g, {2, 6, 8}, 1)); });
  expect_names(msg, "scaled_dot_product_attention", __LINE__ - 1);
  msg = error_of([&] { scaled_dot_product_attention(q, randn(g, {3, 5, 8}, 1), q); });
  expect_names(msg, "scaled_dot_product_attention", __LINE__ - 1);
  msg = error_of([&] { sum(a, {2}); }); expect_names(msg, "sum", __LINE__);
  msg = error_of([&] { mean(a, {0, -2}); }); expect_names(msg, "mean", __LINE__);
  msg = error_of([&] { max(zeros(g, {0, 2}), {0}); }); expect_names(msg, "max", __LINE__);
  msg = error_of([&] { softmax(a, -3); }); expect_names(msg, "softmax", __LINE__);
  msg = error_of([&] { log_softmax(m, 0); }); expect_names(msg, "log_softmax", __LINE__);
  msg = error_of([&] { layer_norm(a, {2}); }); expect_names(msg, "layer_norm", __LINE__);
  msg = error_of([&] { layer_norm(a, {3}, randn(g, {2}, 1)); }); expect_names(msg, "layer_norm", __LINE__);
  msg = error_of([&] { reshape(a, {4, 2}); }); expect_names(msg, "reshape", __LINE__);
  msg = error_of([&] { reshape(a, {-1, -1}); }); expect_names(msg, "reshape", __LINE__);
  msg = error_of([&] { view(a, {-1, 4}); }); expect_names(msg, "reshape", __LINE__);
  msg = error_of([&] { permute(a, {0, 0}); }); expect_names(msg, "permute", __LINE__);
  msg = error_of([&] { permute(a, {0}); }); expect_names(msg, "permute", __LINE__);
  msg = error_of([&] { transpose(a, 0, 2); }); expect_names(msg, "transpose", __LINE__);
  msg = error_of([&] { slice(a, 1, 0, 2, 0); }); expect_names(msg, "slice", __LINE__);
  msg = error_of([&] { expand(a, {2, 4}); }); expect_names(msg, "expand", __LINE__);
  msg = error_of([&] { expand(a, {3}); }); expect_names(msg, "expand", __LINE__);
  msg = error_of([&] { randn(g, {2}, 1, {ElemType::i64}); }); expect_names(msg, "randn", __LINE__);
  msg = error_of([&] { zeros(g, {-1, 2}); }); expect_names(msg, "zeros", __LINE__);
  msg = error_of([&] { from_host(g, {2, 2}, {1, 2, 3}); }); expect_names(msg, "from_host", __LINE__);
  Graph other;
  msg = error_of([&] { add(a, randn(other, {2, 3}, 1)); }); expect_names(msg, "add", __LINE__);
}

TEST(GraphShapes, FrontEndSiteText) {
  Graph g;
  auto a = randn(g, {2, 3}, 1);
  const std::string msg = error_of([&] { add(a, randn(g, {4}, 2), g.site("model.py:12")); });
  EXPECT_NE(msg.find("recorded at model.py:12"), std::string::npos) << msg;
  EXPECT_TRUE((std::is_base_of_v<assay::InputError, GraphError>));  // exit code 3, as bad input
}
