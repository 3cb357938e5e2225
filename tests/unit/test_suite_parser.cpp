#include <gtest/gtest.h>

#include "core/error.hpp"
#include "suite/suite.hpp"

using namespace assay;
using suite::parse_suite;

namespace {
const char* kGood = R"(
[suite]
name = "demo"

[defaults.measure]
mode = "hot"
min_samples = 5

[[bench]]
name = "g"
workload = "gemm"
backends = ["cpu", "assay"]
baseline = "cpu"
dtype = ["f16", "bf16"]
[bench.axes]
m = [64, 128]
n = "m"
k = { start = 16, stop = 64, step = 16 }
[bench.check]
shape = { m = 33, n = 17, k = 9 }
atol = 0.5
)";

// The message of the InputError thrown by parsing `text`, or "" when none is thrown.
std::string error_of(const std::string& text) {
  try {
    parse_suite(text, "t.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string bench_with(const std::string& extra_axes, const std::string& extra = "") {
  return "[[bench]]\nname = \"g\"\nworkload = \"gemm\"\nbackends = [\"cpu\"]\ndtype = \"f32\"\n" + extra +
         "[bench.axes]\n" + extra_axes;
}
}  // namespace

TEST(SuiteParser, GoodSuite) {
  const auto s = parse_suite(kGood, "t.toml");
  EXPECT_EQ(s.name, "demo");
  ASSERT_EQ(s.benches.size(), 1u);
  const auto& b = s.benches[0];
  EXPECT_EQ(b.workload, "gemm");
  EXPECT_EQ(b.backends, (std::vector<std::string>{"cpu", "assay"}));
  EXPECT_EQ(b.baseline, "cpu");
  EXPECT_EQ(b.dtypes, (std::vector<std::string>{"f16", "bf16"}));
  EXPECT_EQ(b.measure.mode, "hot");        // from [defaults.measure]
  EXPECT_EQ(b.measure.min_samples, 5u);
  EXPECT_EQ(b.measure.timeout_s, 15.0);    // documented default
  EXPECT_EQ(b.measure.target_rel_ci, 0.01);
  EXPECT_EQ(b.check.atol, 0.5);
  EXPECT_EQ(b.check.rtol, 0.01);
  EXPECT_EQ(b.check.shape.at("m"), 33);
  ASSERT_EQ(b.axes.size(), 3u);
  EXPECT_EQ(b.axes[0].name, "m");  // file order
  EXPECT_EQ(b.axes[1].expression, "m");
  EXPECT_EQ(b.axes[2].values, (std::vector<std::int64_t>{16, 32, 48, 64}));
  EXPECT_EQ(b.axes[0].pos.line, 16);
  EXPECT_EQ(s.hash.size(), 16u);
}

TEST(SuiteParser, NameDefaultsToFileStem) {
  const auto s = parse_suite(bench_with("m = 1\nn = 1\nk = 1\n"), "suites/quick.toml");
  EXPECT_EQ(s.name, "quick");
  EXPECT_EQ(parse_suite(bench_with("m = 1\nn = 1\nk = 1\n"), "my suite/x y.toml").name, "x_y");
}

TEST(SuiteParser, GeometricRange) {
  const auto s = parse_suite(bench_with("m = { start = 256, stop = 4096, mul = 2 }\nn = 1\nk = 1\n"), "t.toml");
  EXPECT_EQ(s.benches[0].axes[0].values, (std::vector<std::int64_t>{256, 512, 1024, 2048, 4096}));
}

TEST(SuiteParser, MalformedTomlNamesLine) {
  const auto e = error_of("[suite]\nname = \"x\"\n[[bench]\n");
  EXPECT_NE(e.find("t.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("malformed TOML"), std::string::npos) << e;
}

TEST(SuiteParser, UnknownKeyIsAnError) {
  const auto e = error_of(bench_with("m = 1\nn = 1\nk = 1\n", "warmup = 3\n"));
  EXPECT_NE(e.find("t.toml:6:"), std::string::npos) << e;
  EXPECT_NE(e.find("bench[0].warmup: unknown key"), std::string::npos) << e;
}

TEST(SuiteParser, ZeroNegativeAndOverflowingSizes) {
  // Zero passes the parser (flags such as causal take it); the planner holds sizes to >= 1.
  EXPECT_EQ(error_of(bench_with("m = 0\nn = 1\nk = 1\n")), "");
  EXPECT_NE(error_of(bench_with("m = [4, -3]\nn = 1\nk = 1\n")).find("bench[0].axes.m[1]: must be in"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 4294967296\nn = 1\nk = 1\n")).find("got 4294967296"), std::string::npos);
  // Beyond int64: toml++ refuses the literal itself.
  EXPECT_NE(error_of(bench_with("m = 99999999999999999999\nn = 1\nk = 1\n")).find("t.toml:7:25: malformed TOML"),
            std::string::npos);
}

TEST(SuiteParser, WrongTypes) {
  EXPECT_NE(error_of(bench_with("m = 1.5\nn = 1\nk = 1\n")).find("must be an integer, a list"), std::string::npos);
  EXPECT_NE(error_of(bench_with("m = [1, \"a\"]\nn = 1\nk = 1\n")).find("axes.m[1]: must be an integer, not a string"),
            std::string::npos);
  const auto e = error_of("[[bench]]\nname = 3\n");
  EXPECT_NE(e.find("t.toml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("bench[0].name: must be a string, not an integer"), std::string::npos) << e;
}

TEST(SuiteParser, MissingFields) {
  EXPECT_NE(error_of("[suite]\nname = \"x\"\n").find("bench: missing"), std::string::npos);
  const auto e = error_of("[[bench]]\nname = \"g\"\n");
  EXPECT_NE(e.find("bench[0].workload: missing"), std::string::npos) << e;
}

TEST(SuiteParser, BadMeasureAndCheckSettings) {
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nmode = \"warm\"\n"))
                .find("bench[0].measure.mode: must be cold, hot, graph or host"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ntarget_rel_ci = -0.1\n"))
                .find("target_rel_ci: must be in [0, 1]"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nmin_samples = 10\nmax_samples = 5\n"))
                .find("max_samples: must not be less than min_samples"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.check]\natol = \"big\"\n"))
                .find("bench[0].check.atol: must be a number"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ncooldown_s = 601\n"))
                .find("bench[0].measure.cooldown_s: must be in [0, 600]"),
            std::string::npos);
  const auto s = parse_suite(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ncooldown_s = 2.5\n"), "t.toml");
  EXPECT_EQ(s.benches[0].measure.cooldown_s, 2.5);
}

TEST(SuiteParser, TheL2FlushIsMemsetOrClean) {
  EXPECT_EQ(parse_suite(bench_with("m = 1\nn = 1\nk = 1\n"), "t.toml").benches[0].measure.l2_flush, "memset");
  EXPECT_EQ(parse_suite(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nl2_flush = \"clean\"\n"), "t.toml")
                .benches[0]
                .measure.l2_flush,
            "clean");
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nl2_flush = \"dirty\"\n"))
                .find("bench[0].measure.l2_flush: must be memset or clean, not 'dirty'"),
            std::string::npos);
}

TEST(SuiteParser, SampleGapIsMicrosecondsWithinItsRange) {
  EXPECT_EQ(parse_suite(bench_with("m = 1\nn = 1\nk = 1\n"), "t.toml").benches[0].measure.gap_us, 0.0);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ngap_us = -1\n"))
                .find("bench[0].measure.gap_us: must be in [0, 100000]"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ngap_us = \"long\"\n"))
                .find("bench[0].measure.gap_us: must be a number"),
            std::string::npos);
  const auto s = parse_suite(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\ngap_us = 150\n"), "t.toml");
  EXPECT_EQ(s.benches[0].measure.gap_us, 150.0);
}

TEST(SuiteParser, RoundsAreAWholeNumberFromOne) {
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nrounds = 0\n"))
                .find("bench[0].measure.rounds: must be in [1, 64]"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nrounds = 3\n"))
                .find("bench[0].measure.rounds: must be 1 or even"),
            std::string::npos);
  EXPECT_EQ(parse_suite(bench_with("m = 1\nn = 1\nk = 1\n"), "t.toml").benches[0].measure.rounds, 1u);
  const auto s = parse_suite(bench_with("m = 1\nn = 1\nk = 1\n[bench.measure]\nrounds = 4\n"), "t.toml");
  EXPECT_EQ(s.benches[0].measure.rounds, 4u);
}

TEST(SuiteParser, BaselineMustBeABackendAndNamesUnique) {
  EXPECT_NE(error_of(bench_with("m = 1\nn = 1\nk = 1\n", "baseline = \"cublas\"\n"))
                .find("'cublas' is not one of the bench's backends"),
            std::string::npos);
  const std::string b = bench_with("m = 1\nn = 1\nk = 1\n");
  EXPECT_NE(error_of(b + b).find("'g' is used by another bench"), std::string::npos);
  const std::string twice = "[[bench]]\nname = \"g\"\nworkload = \"gemm\"\nbackends = [\"cpu\", \"cpu\"]\n";
  EXPECT_NE(error_of(twice).find("bench[0].backends: lists 'cpu' twice"), std::string::npos) << error_of(twice);
}

TEST(SuiteParser, DtypeAliasesAreCanonicalAndDuplicatesRejected) {
  const auto s = parse_suite(bench_with("m = 1\nn = 1\nk = 1\n").replace(
                                 bench_with("").find("dtype = \"f32\""), 13, "dtype = [\"fp16\", \"bfloat16\"]"),
                             "t.toml");
  EXPECT_EQ(s.benches[0].dtypes, (std::vector<std::string>{"f16", "bf16"}));
  const auto dup = bench_with("m = 1\nn = 1\nk = 1\n").replace(bench_with("").find("dtype = \"f32\""), 13,
                                                                    "dtype = [\"f16\", \"half\"]");
  EXPECT_NE(error_of(dup).find("bench[0].dtype: lists f16 twice"), std::string::npos) << error_of(dup);
  EXPECT_NE(error_of(bench_with("m = [8, 8]\nn = 1\nk = 1\n")).find("bench[0].axes.m: lists 8 twice"),
            std::string::npos);
  EXPECT_NE(error_of("[suite]\nname = \"a/b\"\n" + bench_with("m = 1\nn = 1\nk = 1\n")).find("suite.name: use only"),
            std::string::npos);
}

TEST(SuiteParser, RangeErrors) {
  EXPECT_NE(error_of(bench_with("m = { start = 8, stop = 4 }\nn = 1\nk = 1\n")).find("must not be less than start"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = { start = 1, stop = 4, step = 1, mul = 2 }\nn = 1\nk = 1\n"))
                .find("not both"),
            std::string::npos);
  EXPECT_NE(error_of(bench_with("m = { start = 1 }\nn = 1\nk = 1\n")).find("needs 'start' and 'stop'"),
            std::string::npos);
  // A geometric range from 0 would never grow: refused, not an endless loop.
  EXPECT_NE(error_of(bench_with("m = { start = 0, stop = 8, mul = 2 }\nn = 1\nk = 1\n")).find("must start at 1 or more"),
            std::string::npos);
}

TEST(SuiteParser, MissingFileIsAnInputError) {
  EXPECT_THROW(suite::load_suite("/nonexistent/suite.toml"), InputError);
}

// toml++ 3.3 has undefined behaviour where it tests a character beyond ASCII for whitespace (see
// suite/toml_prescan.hpp); such characters are refused there, and allowed in strings and comments.
TEST(SuiteParser, CharactersBeyondAsciiOnlyInStringsAndComments) {
  const std::string bench = bench_with("m = 1\nn = 1\nk = 1\n");
  for (const std::string allowed :
       {"# é\n[suite] # ü\ndescription = \"ä\\\" é\"\n", "[suite]\ndescription = 'é'\n",
        "[suite]\ndescription = \"\"\"é\n\\\n   x é\"\"\"\n", "[suite]\ndescription = '''\\ é'''\n",
        "[suite]\nname = \"x\"\ndescription = \"\"\"\\t é\"\"\" # ö\n"}) {
    SCOPED_TRACE(allowed);
    EXPECT_EQ(error_of(allowed + bench), "");
  }
  // Strings in keys, arrays and inline tables are strings too (refused later for their names).
  for (const std::string in_string : {"\"é\" = 1\n", "a.'é' = 1\n", "[\"é\"]\n", "[[a.\"é\"]]\n", "a = [1, \"é\",\n 'ü']\n",
                                      "a = { b = \"é\", 'c' = [\"ü\"] }\n", "a = [{ b = 'é' }, {}]\n"}) {
    SCOPED_TRACE(in_string);
    EXPECT_EQ(error_of(in_string).find("beyond ASCII"), std::string::npos);
  }
  const std::pair<std::string, std::string> refused[] = {
      {"é = 1\n", "t.toml:1:1: a character beyond ASCII outside a string"},
      {"a = \"x\"é\n", "t.toml:1:8: a character beyond ASCII outside"},
      {"[a]é\n", "t.toml:1:4: a character beyond ASCII outside"},
      {"a = 1x'é'\n", "t.toml:1:8: a character beyond ASCII in a bare value"},
      {"a = 1.'é'\n", "in a bare value"},
      {"a = 1['é']\n", "in a bare value"},
      {"a = 1{'é'\n", "in a bare value"},
      {"a = [1, 2'é']\n", "in a bare value"},
      {"a = 1979-05-27 07:32'é'\n", "in a bare value"},
      {"a = +J%JJJJ''''o'eeed\xEF\xBB\xBD ee'.ee\x81\n", "t.toml:1:22: a character beyond ASCII in a bare value"},
      {"a = \"\"\"\\é\"\"\"\n", "t.toml:1:9: a character beyond ASCII after a backslash"},
      {"a = \"\"\"x\\  \n  é\"\"\"\n", "t.toml:2:3: a character beyond ASCII after a backslash"},
  };
  for (const auto& [text, message] : refused) {
    SCOPED_TRACE(text);
    EXPECT_NE(error_of(text).find(message), std::string::npos) << error_of(text);
  }
}
