// The name and setting checks that replaced std::regex (core/text_syntax.hpp), and the parsers that
// use them given inputs long enough to have overflowed the regex matcher's recursion (a segfault,
// exit 139, in place of one error line).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <unistd.h>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "core/text_syntax.hpp"
#include "runner/tune_run.hpp"
#include "runner/tuning_table.hpp"
#include "suite/suite.hpp"

using namespace assay;

TEST(TextSyntax, NamesAndSettings) {
  EXPECT_TRUE(is_identifier("_a1"));
  EXPECT_FALSE(is_identifier("1a"));
  EXPECT_FALSE(is_identifier(""));
  EXPECT_FALSE(is_identifier("a-b"));
  EXPECT_TRUE(is_dotted_identifier("my_pkg.kernels"));
  for (const char* bad : {"", ".a", "a.", "a..b", "a.1b", "a b"}) EXPECT_FALSE(is_dotted_identifier(bad)) << bad;
  EXPECT_TRUE(is_env_setting("A="));
  EXPECT_TRUE(is_env_setting("A_1=x=y,z"));
  for (const char* bad : {"=x", "1A=x", "A", "-i=x", "A B=x"}) EXPECT_FALSE(is_env_setting(bad)) << bad;
  EXPECT_TRUE(is_tune_variant("wide=assay@wgmma_128x256"));
  EXPECT_TRUE(is_tune_variant("w=cublas,A=1,B_2="));
  for (const char* bad : {"", "w", "=cublas", "w=", "w=a=b", "w=cu blas", "w=cublas,", "w=cublas,1A=x", "w=cublas,,A=1"})
    EXPECT_FALSE(is_tune_variant(bad)) << bad;
}

TEST(TextSyntax, LongInputsAreCheckedNotACrash) {
  const std::string x(200000, 'x');
  EXPECT_TRUE(is_env_setting("A=" + x));
  EXPECT_TRUE(is_tune_variant("v=cpu,A=" + x));
  std::string dotted = "a";
  for (int i = 0; i < 40000; ++i) dotted += ".a";
  EXPECT_TRUE(is_dotted_identifier(dotted));

  // Through the parsers: a suite's tune variant and py: backend, a --variant, a tuning table's class.
  const std::string suite = "[[bench]]\nname = \"g\"\nworkload = \"gemm\"\nbackends = [\"cpu\"]\ndtype = \"f32\"\n"
                            "[bench.axes]\nm = 8\nn = 8\nk = 8\n[bench.tune]\nvariants = [\"v=cpu,A=" +
                            x + "\", \"v=cpu,A" + x + "\"]\n";
  try {
    suite::parse_suite(suite, "t.toml");
    ADD_FAILURE() << "a variant without '=' in its setting was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is not NAME=BACKEND"), std::string::npos) << std::string(e.what()).substr(0, 200);
  }
  EXPECT_NE(python_callable_name_error("py:" + dotted + ".:f"), "");
  EXPECT_EQ(python_callable_name_error("py:" + dotted + ":f"), "");
  EXPECT_THROW(runner::parse_tune_variant("v=cpu,A" + x, "--variant"), InputError);
  EXPECT_EQ(runner::parse_tune_variant("v=cpu,A=" + x, "--variant").env.size(), 1u);

  const std::string path = "/tmp/assay-text-syntax-" + std::to_string(::getpid()) + ".tuning.json";
  std::string cls = "f32/";
  for (int i = 0; i < 6000; ++i) cls += std::string(i ? "," : "") + "k~2^5";
  std::ofstream(path) << R"({"schema": "assay.tuning", "schema_version": 1, "suite": "s", "bench": "g", "workload": "gemm",)"
                      << R"( "baseline": "cpu", "applies_to": "cpu", "entries": [{"class": ")" << cls << "x" << R"("}]})";
  try {
    runner::load_tuning_table(path);
    ADD_FAILURE() << "a bad class was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a shape class"), std::string::npos) << std::string(e.what()).substr(0, 200);
  }
  ::unlink(path.c_str());
}
