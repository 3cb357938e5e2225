// `assay tune` end to end on the CPU, with the test binary: a variant that crashes its check is
// out before it is timed; the report is written as JSON and Markdown. (The search's decisions
// are tested on a seeded fake machine in test_tune.cpp: CPU timings on a shared CI machine are
// too noisy for them.)
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "compare_test_docs.hpp"
#include "core/atomic_file.hpp"

namespace fs = std::filesystem;
using assay::read_text_file;

TEST(TuneCli, ChecksFirstAndWritesTheReport) {
  const fs::path d = assay::test::fresh_test_dir("tune");
  const auto r = assay::test::run_assay(
      "tune tests/data/tune_cpu.toml --device cpu --out " + (d / "out").string() +
          " --variant slow=cpu,ASSAY_TESTBED_SLOWDOWN=0.9 --variant same=cpu,ASSAY_TESTBED_SLOWDOWN=0 --variant broken=test-abort",
      "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("| `broken` | – | – |  | failed its check (shape 0: crashed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("measure broken"), std::string::npos) << "a variant that failed its check was timed";
  EXPECT_NE(r.out.find("check slow tune/cpu/f32/k=64,m=64,n=64: ok"), std::string::npos) << r.out;
  std::vector<fs::path> json;
  for (const auto& e : fs::directory_iterator(d / "out"))
    if (e.path().extension() == ".json") json.push_back(e.path());
  ASSERT_EQ(json.size(), 1u);
  const auto j = nlohmann::json::parse(read_text_file(json[0]));
  EXPECT_EQ(j["schema"], "assay.tune");
  EXPECT_EQ(j["baseline"], "cpu");
  EXPECT_EQ(j["shapes"].size(), 3u);
  ASSERT_EQ(j["variants"].size(), 3u);
  EXPECT_EQ(j["variants"][0]["env"][0], "ASSAY_TESTBED_SLOWDOWN=0.9");
  EXPECT_EQ(j["variants"][0]["speedup"].size(), 3u);
  EXPECT_EQ(j["variants"][2]["budget"], 0.0);
  EXPECT_TRUE(fs::exists(fs::path(json[0]).replace_extension(".md")));
}

// --variants-of takes the family members that implement the bench's workload (assay@ holds GEMM
// and attention configurations); where none can run (no GPU here) it is exit 2, as `assay run`.
TEST(TuneCli, VariantsOfTakesTheBenchsWorkloadAndSkipsWhereNothingRuns) {
  const fs::path d = assay::test::fresh_test_dir("tune-family");
  const auto r = assay::test::run_assay("tune suites/attention-hopper.toml --bench mission --variants-of assay --device cpu "
                                        "--out " + (d / "out").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("does not implement"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("| `assay@flash_m64` | – | – |  | not run here (shape 0: skipped"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("wgmma_128x256"), std::string::npos) << "a GEMM configuration became an attention variant";
  EXPECT_NE(r.out.find("skipped: no variant can run here"), std::string::npos) << r.out;
}

// Without --variant, the bench's [bench.tune] variants are the search's.
TEST(TuneCli, TheBenchsOwnVariants) {
  const fs::path d = assay::test::fresh_test_dir("tune-suite-variants");
  const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out " + (d / "out").string(),
                                        "ASSAY_TEST_BACKENDS=1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("| `broken` | – | – |  | failed its check"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check slower tune/cpu/f32/k=64,m=64,n=64: ok"), std::string::npos) << r.out;
  // A malformed entry is bad input naming the suite's line; an unknown backend names it too.
  const fs::path bad = d / "bad.toml";
  std::string text = read_text_file(assay::test::source_dir() + "/tests/data/tune_cpu.toml");
  text.replace(text.find("broken=test-abort"), 17, "broken");
  assay::write_file_atomically(bad, text);
  const auto r2 = assay::test::run_assay("tune " + bad.string() + " --device cpu --out " + (d / "out").string());
  EXPECT_EQ(r2.code, 3) << r2.out;
  EXPECT_NE(r2.out.find("bad.toml:19:12: bench[0].tune.variants: 'broken' is not NAME=BACKEND"), std::string::npos)
      << r2.out;
}

TEST(TuneCli, BadVariantsAreExitThree) {
  for (const std::string bad : {"--variant nonsense", "--variant x=no-such-backend", "--variant cpu=cpu",
                                "--variant x=cpu,notasetting", "--bench nope --variant x=cpu"}) {
    const auto r = assay::test::run_assay("tune tests/data/tune_cpu.toml --device cpu --out /tmp/never " + bad);
    EXPECT_EQ(r.code, 3) << bad << ": " << r.out;
  }
}
