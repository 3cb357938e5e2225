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

// Two variants of one backend over three shapes, two of them in one class; `wide` leads the
// elite and its promotion found these verdicts per shape.
TuneRunOutcome outcome(const std::string& baseline, std::vector<stats::Verdict> verdicts, bool promoted) {
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
  tune::VariantOutcome wide{"wide", "", {1.10, 1.08, 1.01}, 0, 1.0, "", true};
  tune::VariantOutcome narrow{"narrow", "", {1.00, 1.00, 1.30}, 0, 1.0, "regresses on 2 of 3 shapes", false};
  tune::VariantOutcome bad{"bad", "check-failed: wrong", {}, 0, 0, "failed its check", false, tune::CheckEnd::failed};
  t.result.variants = {wide, narrow, bad};
  t.result.elite = {"wide"};
  t.result.promotion = tune::Promotion{"wide", promoted, std::move(verdicts), "as given"};
  return t;
}

using stats::Verdict;

}  // namespace

// Only the promotion's paired sessions confirm a speedup: a variant the drop rules threw out gets
// no entry, however fast its point estimate on a class (`narrow`, 1.30 on the 64^3 class).
TEST(TuningTable, OnlyThePromotedVariantGetsEntries) {
  std::string why;
  const auto table = make_tuning_table(outcome("cublas", {Verdict::faster, Verdict::faster, Verdict::same}, true), &why);
  ASSERT_TRUE(table) << why;
  EXPECT_EQ(table->applies_to, "assay");
  ASSERT_EQ(table->entries.size(), 2u);  // promoted: every class, the 64^3 one too
  EXPECT_EQ(table->entries[0].shape_class, "f16/k~2^12,m~2^12,n~2^12");
  EXPECT_EQ(table->entries[0].backend, "assay@wgmma_128x256");
  EXPECT_EQ(table->entries[0].shapes.size(), 2u);
  EXPECT_NEAR(table->entries[0].speedup, std::sqrt(1.10 * 1.08), 1e-12);
  EXPECT_EQ(table->entries[1].variant, "wide");
  const TuningEntry* e = table->find("assay", "gemm", "f16", {{"m", 6000}, {"n", 5000}, {"k", 4100}});
  ASSERT_TRUE(e);
  EXPECT_EQ(e->variant, "wide");
  EXPECT_FALSE(table->find("assay", "gemm", "bf16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}));  // other dtype
  EXPECT_FALSE(table->find("cublas", "gemm", "f16", {{"m", 4096}, {"n", 4096}, {"k", 4096}}));  // other backend
  EXPECT_FALSE(table->find("assay", "gemm", "f16", {{"m", 100000}, {"n", 4096}, {"k", 4096}}));  // no class
}

// Not promoted (a SLOWER shape): only a class whose every shape was FASTER gets an entry.
TEST(TuningTable, NotPromotedOnlyTheClassesFoundFaster) {
  std::string why;
  const auto table = make_tuning_table(outcome("cublas", {Verdict::faster, Verdict::faster, Verdict::slower}, false), &why);
  ASSERT_TRUE(table) << why;
  ASSERT_EQ(table->entries.size(), 1u);
  EXPECT_EQ(table->entries[0].shape_class, "f16/k~2^12,m~2^12,n~2^12");
  EXPECT_FALSE(make_tuning_table(outcome("cublas", {Verdict::faster, Verdict::same, Verdict::slower}, false), &why));
  EXPECT_NE(why.find("the promotion of wide found it FASTER on no whole class"), std::string::npos) << why;
  // No elite, no promotion: no table, whatever the point estimates.
  TuneRunOutcome none = outcome("cublas", {}, false);
  none.result.promotion.reset();
  EXPECT_FALSE(make_tuning_table(none, &why));
  EXPECT_EQ(why, "no variant passed the drop rules into the elite");
}

TEST(TuningTable, AgainstItsOwnDefaultAClassNoVariantBeatsKeepsTheDefault) {
  std::string why;
  const auto table = make_tuning_table(outcome("assay", {Verdict::faster, Verdict::faster, Verdict::same}, true), &why);
  ASSERT_TRUE(table) << why;
  ASSERT_EQ(table->entries.size(), 1u);  // the 64^3 class: not FASTER than the default there
  EXPECT_EQ(table->entries[0].variant, "wide");
}

TEST(TuningTable, VariantsOfDifferentBackendsMakeNoTable) {
  TuneRunOutcome t = outcome("cublas", {Verdict::faster, Verdict::faster, Verdict::faster}, true);
  t.variants[1].backend = "triton";
  std::string why;
  EXPECT_FALSE(make_tuning_table(t, &why));
  EXPECT_NE(why.find("different backends"), std::string::npos) << why;
}

TEST(TuningTable, TheFileReadsBackAndBadFilesAreNamed) {
  std::string why;
  const auto table = make_tuning_table(outcome("cublas", {Verdict::faster, Verdict::faster, Verdict::faster}, true), &why);
  ASSERT_TRUE(table) << why;
  const auto dir = std::filesystem::temp_directory_path() / ("assay-tuning-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "t.tuning.json").string();
  std::ofstream(path) << tuning_table_json(*table);
  const TuningTable back = load_tuning_table(path);
  EXPECT_EQ(back.entries.size(), 2u);
  EXPECT_EQ(back.entries[1].backend, "assay@wgmma_128x256");
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
  const std::string good = tuning_table_json(*table);
  // The file with `from` replaced in entry 1 (whose first key, sorted, is its second "backend").
  const auto edit = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const std::size_t second = text.find("\"backend\"", text.find("\"backend\"") + 1);
    return text.replace(text.find(from, second), from.size(), to);
  };
  bad(edit("assay@wgmma_128x256", "cublas"), "field '$.entries[1].backend' is 'cublas', not a backend of 'assay'");
  // A table that could apply to nothing: a class no shape has, a class twice, a speedup that is
  // none, a workload unknown here.
  bad(edit("f16/k~2^6,m~2^6,n~2^6", "nonsense"), "field '$.entries[1].class' is 'nonsense', not a shape class");
  bad(edit("f16/k~2^6,m~2^6,n~2^6", "f16/k~2^6,"), "field '$.entries[1].class' is 'f16/k~2^6,'");
  bad(edit("f16/k~2^6,m~2^6,n~2^6", "f99/k~2^6"), "field '$.entries[1].class' is 'f99/k~2^6'");
  bad(edit("f16/k~2^6,m~2^6,n~2^6", "f16/k~2^12,m~2^12,n~2^12"), "field '$.entries[1].class' 'f16/k~2^12,m~2^12,n~2^12' has an entry already");
  bad(edit("\"speedup\": 1.01", "\"speedup\": -5"), "field '$.entries[1].speedup' must be a positive number");
  bad(edit("\"speedup\": 1.01", "\"speedup\": 0"), "field '$.entries[1].speedup' must be a positive number");
  std::string text = good;
  bad(text.replace(text.find("\"gemm\""), 6, "\"gemmm\""), "field '$.workload' is 'gemmm', which no workload here is");
  std::filesystem::remove_all(dir);
}

// "The heuristic" is the variant that runs the family's backend itself, with no settings: not
// any variant without '@' (cuBLAS raced against assay's configurations is none).
TEST(TuningTable, TheHeuristicIsTheFamilysOwnBackend) {
  TuneRunOutcome t = outcome("cublas", {Verdict::faster, Verdict::faster, Verdict::faster}, true);
  t.family = "assay";
  t.variants[1].backend = "triton";
  EXPECT_EQ(tune_report_markdown(t).find("The heuristic"), std::string::npos) << tune_report_markdown(t);
  t.variants[1].backend = "assay";
  EXPECT_NE(tune_report_markdown(t).find("The heuristic (`narrow`)"), std::string::npos) << tune_report_markdown(t);
  t.family = "";  // the variants of several backends: no one family's heuristic
  EXPECT_EQ(tune_report_markdown(t).find("The heuristic"), std::string::npos);
}
