// `assay graph dump` end to end: exit codes and the expected lines.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

namespace {

struct Result {
  int code;
  std::string out;
};

Result run_assay(const std::string& args) {
  const std::string bin = (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "assay").string();
  Result r{-1, {}};
  FILE* p = popen((bin + " " + args + " 2>&1").c_str(), "r");
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool has(const std::string& out, const std::string& s) { return out.find(s) != std::string::npos; }

}  // namespace

TEST(GraphCli, DumpMlp) {
  const Result r = run_assay("graph dump --example mlp --batch 4 --hidden 32");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "graph mlp before passes")) << r.out;
  EXPECT_TRUE(has(r.out, "linear{bias}(")) << r.out;
  EXPECT_TRUE(has(r.out, "gelu{tanh}(")) << r.out;
  EXPECT_TRUE(has(r.out, "-> f32[4,32] cpu")) << r.out;
  EXPECT_TRUE(has(r.out, "  fold: ")) << r.out;
  EXPECT_TRUE(has(r.out, "graph mlp after passes")) << r.out;
  EXPECT_TRUE(has(r.out, "constant{")) << r.out;  // the biases (<= 4096 elements) folded
  EXPECT_TRUE(has(r.out, "fusion groups (")) << r.out;
  EXPECT_TRUE(has(r.out, "memory: ")) << r.out;
}

TEST(GraphCli, DumpChainAndBlock) {
  Result r = run_assay("graph dump --example chain --n 1000");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "matmul(%0, %0) -> f32[1000,1000]")) << r.out;
  EXPECT_TRUE(has(r.out, "t1 = sum{dims=[0,1]}(t0)")) << r.out;  // relu and sum fused
  r = run_assay("graph dump --example block --batch 2 --seq 8 --hidden 64 --heads 4 --dtype f16");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(has(r.out, "scaled_dot_product_attention{")) << r.out;
  EXPECT_TRUE(has(r.out, "layer_norm{")) << r.out;
  EXPECT_TRUE(has(r.out, "f16[2,8,64]")) << r.out;
}

TEST(GraphCli, BadUsageExits3) {
  EXPECT_EQ(run_assay("graph dump --example nope").code, 3);
  EXPECT_EQ(run_assay("graph dump --bogus").code, 3);
  EXPECT_EQ(run_assay("graph dump --dtype f64").code, 3);
  EXPECT_EQ(run_assay("graph").code, 3);
  const Result r = run_assay("graph dump --example block --hidden 30 --heads 4");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_TRUE(has(run_assay("nothing").out, "report, graph, tune, profile;"));
}
