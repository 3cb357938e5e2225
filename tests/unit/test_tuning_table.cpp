// The tuning table (src/runner/tuning_table): shape classes, the choice per class from a tune
// outcome, and the file's validation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "core/error.hpp"
#include "runner/tune_run.hpp"
#include "runner/tuning_table.hpp"

using namespace assay;
using namespace assay::runner;

TEST(TuningTable, ShapeClassesArePowerOfTwoBucketsAndExactFlags) {
  EXPECT_EQ(shape_class("f16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}), "f16/k~2^12,m~2^12,n~2^12");
  EXPECT_EQ(shape_class("f16", {{"m", 4097}, {"n", 8191}, {"k", 2}}), "f16/k~2^1,m~2^12,n~2^12");
  EXPECT_EQ(shape_class("bf16", {{"s", 512}, {"causal", 1}, {"b", 1}, {"d", 64}}), "bf16/b=1,causal=1,d~2^6,s~2^9");
  EXPECT_NE(shape_class("f16", {{"m", 3000}}), shape_class("f16", {{"m", 5000}}));
}

namespace {

// Two variants of one backend over three shapes, two of them in one class.
TuneRunOutcome outcome(const std::string& baseline) {
  TuneRunOutcome t;
  t.suite = "s";
  t.bench = "b";
  t.workload = "gemm";
  t.baseline = baseline;
  t.shapes = {"b/x/f16/k=4096,m=4096,n=4096", "b/x/f16/k=4096,m=5000,n=4096", "b/x/f16/k=64,m=64,n=64"};
  t.shape_points = {{"f16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}},
                    {"f16", {{"m", 5000}, {"n", 4096}, {"k", 4096}}},
                    {"f16", {{"m", 64}, {"n", 64}, {"k", 64}}}};
  t.variants = {{"wide", "assay@wgmma_128x256", {}}, {"narrow", "assay@wgmma_128x64", {}}, {"bad", "assay@x", {}}};
  tune::VariantOutcome wide{"wide", "", {1.10, 1.02, 0.50}, 0, 1.0, "", true};
  tune::VariantOutcome narrow{"narrow", "", {1.00, 1.00, 0.90}, 0, 1.0, "", false};
  tune::VariantOutcome bad{"bad", "check-failed: wrong", {}, 0, 0, "failed its check", false};
  t.result.variants = {wide, narrow, bad};
  return t;
}

}  // namespace

TEST(TuningTable, TheBestCheckedVariantPerClass) {
  std::string why;
  const auto table = make_tuning_table(outcome("cublas"), &why);
  ASSERT_TRUE(table) << why;
  EXPECT_EQ(table->applies_to, "assay");
  ASSERT_EQ(table->entries.size(), 2u);
  EXPECT_EQ(table->entries[0].shape_class, "f16/k~2^12,m~2^12,n~2^12");
  EXPECT_EQ(table->entries[0].backend, "assay@wgmma_128x256");
  EXPECT_EQ(table->entries[0].shapes.size(), 2u);
  EXPECT_NEAR(table->entries[0].speedup, std::sqrt(1.10 * 1.02), 1e-12);
  EXPECT_EQ(table->entries[1].backend, "assay@wgmma_128x64");  // best at the small shape, though slower than cuBLAS
  const TuningEntry* e = table->find("assay", "gemm", "f16", {{"m", 6000}, {"n", 5000}, {"k", 4100}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->variant, "wide");
  EXPECT_FALSE(table->find("assay", "gemm", "bf16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}));  // other dtype
  EXPECT_FALSE(table->find("cublas", "gemm", "f16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}));  // other backend
  EXPECT_FALSE(table->find("assay", "gemm", "f16", {{"m", 100000}, {"n", 4096}, {"k", 4096}}));  // no class
}

TEST(TuningTable, AgainstItsOwnDefaultAClassNoVariantBeatsKeepsTheDefault) {
  std::string why;
  const auto table = make_tuning_table(outcome("assay"), &why);
  ASSERT_TRUE(table) << why;
  ASSERT_EQ(table->entries.size(), 1u);  // the 64^3 class: no variant beat the default
  EXPECT_EQ(table->entries[0].variant, "wide");
}

TEST(TuningTable, VariantsOfDifferentBackendsMakeNoTable) {
  TuneRunOutcome t = outcome("cublas");
  t.variants[1].backend = "triton";
  std::string why;
  EXPECT_FALSE(make_tuning_table(t, &why));
  EXPECT_NE(why.find("different backends"), std::string::npos) << why;
}

TEST(TuningTable, TheFileReadsBackAndBadFilesAreNamed) {
  std::string why;
  const auto table = make_tuning_table(outcome("cublas"), &why);
  const auto dir = std::filesystem::temp_directory_path() / ("assay-tuning-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "t.tuning.json").string();
  std::ofstream(path) << tuning_table_json(*table);
  const TuningTable back = load_tuning_table(path);
  EXPECT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[1].backend, "assay@wgmma_128x64");
  const auto bad = [&](const std::string& text, const std::string& want) {
    std::ofstream(path) << text;
    try {
      load_tuning_table(path);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  bad("{", "not valid JSON");
  bad(R"({"schema": "assay.results", "schema_version": 1})", "'$.schema' is not 'assay.tuning'");
  std::string text = tuning_table_json(*table);
  bad(text.replace(text.find("assay@wgmma_128x64"), 18, "cublas"), "field '$.entries[1].backend' is 'cublas', not a backend of 'assay'");
  std::filesystem::remove_all(dir);
}
