#include <gtest/gtest.h>

#include "core/error.hpp"
#include "suite/suite.hpp"

using namespace assay;
using namespace assay::suite;

namespace {
Bench bench(std::vector<Axis> axes, std::vector<std::string> dtypes = {"f16"}) {
  Bench b;
  b.name = "b";
  b.axes = std::move(axes);
  b.dtypes = std::move(dtypes);
  return b;
}
Axis values(const std::string& name, std::vector<std::int64_t> v) { return {name, std::move(v), "", {}}; }
Axis derived(const std::string& name, const std::string& expr) { return {name, {}, expr, {"t.toml", 7, 1}}; }
}  // namespace

TEST(AxisExpansion, CartesianProductLastAxisFastest) {
  const auto pts = expand_points(bench({values("m", {1, 2}), values("k", {10, 20, 30})}, {"f16", "bf16"}));
  ASSERT_EQ(pts.size(), 12u);
  EXPECT_EQ(pts[0].params.at("m"), 1);
  EXPECT_EQ(pts[0].params.at("k"), 10);
  EXPECT_EQ(pts[1].params.at("k"), 20);
  EXPECT_EQ(pts[3].params.at("m"), 2);
  EXPECT_EQ(pts[3].params.at("k"), 10);
  EXPECT_EQ(pts[5].dtype, "f16");
  EXPECT_EQ(pts[6].dtype, "bf16");
  EXPECT_EQ(pts[11].params.at("m"), 2);
  EXPECT_EQ(pts[11].params.at("k"), 30);
}

TEST(AxisExpansion, DerivedValues) {
  const auto pts = expand_points(bench({values("m", {1024, 2048}), derived("n", "m"), derived("k", "2*m + n/4")}));
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[1].params.at("n"), 2048);
  EXPECT_EQ(pts[1].params.at("k"), 4096 + 512);
}

TEST(AxisExpansion, DerivedValueOutOfRangeNamesTheAxis) {
  try {
    expand_points(bench({values("m", {4}), derived("k", "m - 5")}));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.toml:7:1: bench 'b': axes.k = 'm - 5' gives -1, outside [0, 2147483647]"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(expand_points(bench({values("m", {2147483647}), derived("k", "m*2")})), InputError);
}

TEST(Expression, Arithmetic) {
  const std::map<std::string, std::int64_t> v{{"m", 6}, {"n", 4}};
  EXPECT_EQ(eval_expression("m", v), 6);
  EXPECT_EQ(eval_expression(" (m + n) * 2 ", v), 20);
  EXPECT_EQ(eval_expression("m - n - 1", v), 1);   // left associative
  EXPECT_EQ(eval_expression("m / n * 3", v), 3);   // integer division, left associative
  EXPECT_EQ(eval_expression("-m + 10", v), 4);
}

TEST(Expression, Errors) {
  const std::map<std::string, std::int64_t> v{{"m", 6}};
  EXPECT_THROW(eval_expression("x", v), InputError);
  EXPECT_THROW(eval_expression("m /", v), InputError);
  EXPECT_THROW(eval_expression("m / 0", v), InputError);
  EXPECT_THROW(eval_expression("(m", v), InputError);
  EXPECT_THROW(eval_expression("m m", v), InputError);
  EXPECT_THROW(eval_expression("9223372036854775807 + 1", v), InputError);
  EXPECT_THROW(eval_expression("99999999999999999999", v), InputError);
}
