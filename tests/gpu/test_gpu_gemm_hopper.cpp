// The GEMM kernels of issue 5 against the fp64 oracle: 50 random shapes in [1, 5000]^3 per
// dtype (most are not TMA-addressable and take the any-shape kernels), 50 more per dtype with
// n and k rounded up to multiples of 16, at most 4992 (the Hopper kernel on sm_90, edge tiles
// in m, n and k), and every pinned configuration on shapes chosen for edge and persistence cases.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <utility>
#include <string>
#include <tuple>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "gpu_test_support.hpp"
#include "kernels/gemm/gemm_kernels.hpp"
#include "kernels/gemm/hopper/hopper_gemm.hpp"
#include "kernels/gemm/hopper/tensor_maps.hpp"
#include "kernels/gemm/k_segments.hpp"
#include "scoped_env.hpp"
#include "verify/tolerance.hpp"
#include "workloads/gemm.hpp"

using namespace assay;

namespace {

// fp8: wgmma sums each 128-long K block of e4m3 products with fewer bits than fp32 before it
// is added to the fp32 accumulators (cuBLASLt does the same); near-zero outputs then miss by
// up to ~0.03 at k = 4096 (seen for both), so atol is 0.1: 0.25% of the outputs' standard
// deviation there (~40).
verify::Tolerance tolerance_for(DType t) {
  return t == DType::f8e4m3 ? verify::Tolerance{0.1, 0.01} : verify::Tolerance{0.02, 0.01};
}

bool device_is_hopper() {
  int device = 0;
  return cudaGetDevice(&device) == cudaSuccess && kernels::hopper::device_facts(device).hopper;
}

// Checks one backend on one shape against the oracle (all rows, or `rows` sampled rows);
// returns the variant the backend ran.
std::string check_shape(const std::string& backend_name, DType dtype, int m, int n, int k, std::uint64_t seed,
                        std::int64_t rows) {
  const Backend* backend = find_backend(backend_name);
  EXPECT_NE(backend, nullptr) << backend_name;
  if (backend == nullptr) return {};
  GemmProblem p(m, n, k, dtype);
  const auto inputs = p.make_inputs(seed);
  auto inst = backend->instantiate(p, inputs);
  inst->poison_output();
  inst->call(nullptr);
  const auto ref = p.reference(inputs, rows);
  const auto c = verify::check_output(inst->read_output(), ref, tolerance_for(dtype));
  EXPECT_TRUE(c.passed) << backend_name << " " << dtype_name(dtype) << " " << m << "x" << n << "x" << k << " ("
                        << inst->variant() << "): fails=" << c.fails << "/" << c.checked << " nan=" << c.nan_count
                        << " max_abs=" << c.max_abs << " " << c.first_failure;
  EXPECT_EQ(c.checked, ref.value.size());
  return inst->variant();
}

class RandomShapes : public ::testing::TestWithParam<DType> {};

int round_up(int x, int to) { return (x + to - 1) / to * to; }

TEST_P(RandomShapes, AnyShapeMatchesOracle) {
  ASSAY_REQUIRE_GPU();
  const DType dtype = GetParam();
  std::mt19937 rng(5000 + static_cast<int>(dtype));
  std::uniform_int_distribution<int> dim(1, 5000);
  for (int i = 0; i < 50; ++i) {
    const int m = dim(rng), n = dim(rng), k = dim(rng);
    check_shape("assay", dtype, m, n, k, 100 + i, 6);
  }
}

TEST_P(RandomShapes, AddressableShapesRunTheHopperKernel) {
  ASSAY_REQUIRE_GPU();
  const DType dtype = GetParam();
  const bool hopper = device_is_hopper();
  std::mt19937 rng(7000 + static_cast<int>(dtype));
  std::uniform_int_distribution<int> dim(1, 5000);
  for (int i = 0; i < 50; ++i) {
    const int m = dim(rng), n = std::min(4992, round_up(dim(rng), 16)), k = std::min(4992, round_up(dim(rng), 16));
    const std::string variant = check_shape("assay", dtype, m, n, k, 200 + i, 6);
    if (hopper) EXPECT_EQ(variant.rfind("wgmma_", 0), 0u) << m << "x" << n << "x" << k << " ran " << variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Dtypes, RandomShapes, ::testing::Values(DType::f16, DType::bf16, DType::f8e4m3),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

using Pinned = std::tuple<std::string, DType>;
class PinnedConfigs : public ::testing::TestWithParam<Pinned> {};

// Full checks: one row of tiles and a ragged edge, tiny m, k below one stage, several
// tiles per persistent CTA (2048 x 2048 is 512 tiles of 128 x 64; 2304 x 2304 is 144 of
// 192 x 192, more than the 132 SMs of an H100), and a K tail. The f16/bf16 256-wide tile ends a
// CTA's last tile in column parts when it has more than two K blocks (v15): three blocks with
// a K tail and a last tile column only 8 wide (200 x 776 x 144), and last tiles that follow
// others in a persistent CTA (2560 x 2560 is 200 tiles of 128 x 256).
TEST_P(PinnedConfigs, EdgeAndPersistenceShapesMatchOracle) {
  ASSAY_REQUIRE_GPU();
  const auto& [config, dtype] = GetParam();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const int shapes[][3] = {{129, 264, 80},    {1, 8, 16},       {300, 520, 1040}, {2048, 2048, 256},
                           {2304, 2304, 64}, {640, 1000, 4112}, {200, 776, 144},  {2560, 2560, 208}};
  for (const auto& s : shapes) {
    const bool fp8 = dtype == DType::f8e4m3;
    const bool four = config.find("_c4") != std::string::npos;
    const bool unbuilt = fp8 ? config.rfind("wgmma_128x256", 0) == 0 || config.rfind("wgmma_192x192", 0) == 0 ||
                                   config.rfind("wgmma_64x", 0) == 0 || four
                             : config.rfind("wgmma_128x176", 0) == 0 || config.rfind("wgmma_128x208", 0) == 0;
    if (unbuilt) {  // see hopper_gemm.hpp
      EXPECT_THROW(check_shape("assay@" + config, dtype, s[0], s[1], s[2], 300, 0), SkipError);
      continue;
    }
    const std::string variant = check_shape("assay@" + config, dtype, s[0], s[1], s[2], 300, 0);
    const std::string tile = config.substr(0, config.find("_c"));  // e.g. wgmma_128x64
    EXPECT_EQ(variant.rfind(tile + "x", 0), 0u) << variant;
    EXPECT_EQ(variant.find("_c2") != std::string::npos, config.find("_c2") != std::string::npos) << variant;
    EXPECT_EQ(variant.find("_c4") != std::string::npos, four) << variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, PinnedConfigs,
                         ::testing::Combine(::testing::Values("wgmma_128x256", "wgmma_128x256_c2", "wgmma_128x208",
                                                              "wgmma_128x208_c2", "wgmma_128x192",
                                                              "wgmma_128x192_c2", "wgmma_128x176", "wgmma_128x176_c2",
                                                              "wgmma_128x128", "wgmma_128x128_c2", "wgmma_128x64",
                                                              "wgmma_128x64_c2", "wgmma_192x192", "wgmma_192x192_c2",
                                                              "wgmma_64x128", "wgmma_64x128_c2", "wgmma_128x128_c4",
                                                              "wgmma_128x192_c4", "wgmma_128x256_c4"),
                                            ::testing::Values(DType::f16, DType::bf16, DType::f8e4m3)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(dtype_name(std::get<1>(info.param)));
                         });

TEST(PinnedConfigs, UnrunnableConfigIsSkippedWithTheReason) {
  ASSAY_REQUIRE_GPU();
  GemmProblem p(64, 64, 7, DType::f16);  // k % 8 != 0: TMA cannot address the rows of A
  const auto inputs = p.make_inputs(1);
  auto inst = find_backend("assay@wgmma_128x128")->instantiate(p, inputs);
  try {
    inst->call(nullptr);
    FAIL() << "expected a SkipError";
  } catch (const SkipError& e) {
    EXPECT_NE(std::string(e.what()).find("wgmma_128x128"), std::string::npos) << e.what();
  }
}

// Split-K (split_k.cuh): S CTAs per tile reduce through a workspace. Ragged m, n and K tails, a
// K of just S blocks, splits that do not divide the K blocks, more (tile, split) units than SMs
// (2048 x 2048 is 256 tiles of 128 x 64: each CTA then takes several), and a deep K.
using SplitPinned = std::tuple<std::string, DType>;
class SplitConfigs : public ::testing::TestWithParam<SplitPinned> {};

TEST_P(SplitConfigs, EdgeShapesMatchOracle) {
  ASSAY_REQUIRE_GPU();
  const auto& [config, dtype] = GetParam();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const int splits = std::stoi(config.substr(config.rfind("_k") + 2));
  // Lines along rows or columns by the rule (k_segments.hpp): both occur among these for each tile
  // (64 x 128 along rows only at one tile column, 640 x 8, where lines are of one tile).
  const int tile_m = std::stoi(config.substr(6)), tile_n = std::stoi(config.substr(config.find('x') + 1));
  const int shapes[][3] = {{129, 264, 1040}, {1, 8, 64 * splits}, {300, 520, 4112}, {2048, 2048, 1024},
                           {640, 1000, 4104}, {200, 776, 8000}, {37, 1160, 6152}, {1000, 640, 4104},
                           {776, 200, 8000}, {2049, 136, 3000}, {640, 8, 4104}};
  for (const auto& s : shapes) {
    const std::string variant = check_shape("assay@" + config, dtype, s[0], s[1], s[2], 310, 0);
    const bool by_row = kernels::hopper::split_lines_by_row(s[0], s[1], tile_m, tile_n);
    EXPECT_NE(variant.find("_k" + std::to_string(splits) + (by_row ? "r_" : "_")), std::string::npos)
        << variant;
  }
  // Fewer 64-deep K blocks than splits: skipped with the reason.
  EXPECT_THROW(check_shape("assay@" + config, dtype, 64, 64, 64 * (splits - 1), 310, 0), SkipError);
}

INSTANTIATE_TEST_SUITE_P(Configs, SplitConfigs,
                         ::testing::Combine(::testing::Values("wgmma_128x128_k2", "wgmma_128x128_k3",
                                                              "wgmma_128x128_k4", "wgmma_128x64_k2",
                                                              "wgmma_128x64_k4", "wgmma_128x64_k8",
                                                              "wgmma_64x128_k2", "wgmma_64x128_k3",
                                                              "wgmma_64x128_k4", "wgmma_64x128_k8"),
                                            ::testing::Values(DType::f16, DType::bf16)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(dtype_name(std::get<1>(info.param)));
                         });

// Stream-K (split_k.cuh): groups of one CTA per tile row share every tile column's K blocks evenly.
// Shapes with fewer (column, K block) iterations than groups (one each: a column's K then cut into
// up to 17 segments), one iteration in all, ragged m, n and K tails, columns whose K is cut two or
// three ways, and more columns than groups (2048 x 2048: whole tiles between each CTA's two cut ones).
class StreamConfigs : public ::testing::TestWithParam<SplitPinned> {};

TEST_P(StreamConfigs, EdgeShapesMatchOracle) {
  ASSAY_REQUIRE_GPU();
  const auto& [config, dtype] = GetParam();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const int shapes[][3] = {{1, 8, 64},         {129, 264, 1040}, {300, 520, 4112}, {2048, 2048, 1024},
                           {640, 1000, 4104}, {200, 776, 8000}, {37, 1160, 6152}, {134, 6480, 2056}};
  for (const auto& s : shapes) {
    const std::string variant = check_shape("assay@" + config, dtype, s[0], s[1], s[2], 311, 0);
    EXPECT_NE(variant.find("_sk"), std::string::npos) << variant;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, StreamConfigs,
                         ::testing::Combine(::testing::Values("wgmma_128x128_sk", "wgmma_128x64_sk", "wgmma_64x128_sk"),
                                            ::testing::Values(DType::f16, DType::bf16)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::string(dtype_name(std::get<1>(info.param)));
                         });

// The counters are left at zero by every launch, and the sum's order is fixed: launches after
// the first give the same bits, whichever split (or stream-K segment) of a tile came last.
TEST(SplitConfigs, RepeatedLaunchesGiveTheSameBits) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  for (const char* config :
       {"assay@wgmma_128x64_k4", "assay@wgmma_64x128_k6", "assay@wgmma_128x128_sk", "assay@wgmma_64x128_sk"}) {
    GemmProblem p(333, 1000, 6000, DType::f16);
    const auto inputs = p.make_inputs(11);
    auto inst = find_backend(config)->instantiate(p, inputs);
    inst->poison_output();
    inst->call(nullptr);
    const HostTensor first = inst->read_output();
    for (int i = 0; i < 5; ++i) {
      inst->poison_output();
      inst->call(nullptr);
      const HostTensor again = inst->read_output();
      ASSERT_TRUE(again.data == first.data) << "launch " << i + 2 << " (" << inst->variant() << ")";
    }
    const auto c = verify::check_output(first, p.reference(inputs, 0), tolerance_for(DType::f16));
    EXPECT_TRUE(c.passed) << config << ": " << c.first_failure;
  }
}

// ASSAY_SPLIT_ORDER pins split-K's lines (for `assay ab` of the rule): both orders give the right
// result at a shape of each kind, and an unknown value makes the plan unavailable, naming it.
TEST(SplitConfigs, OrderPinnedByTheEnvironment) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  for (const char* order : {"row", "column"}) {
    const ScopedEnv pinned("ASSAY_SPLIT_ORDER", order);
    for (const auto& [m, n] : {std::pair{296, 1000}, std::pair{1000, 296}}) {
      const std::string variant = check_shape("assay@wgmma_128x64_k3", DType::bf16, m, n, 4104, 312, 0);
      EXPECT_NE(variant.find(std::string(order) == "row" ? "_k3r_" : "_k3_"), std::string::npos) << order << " " << variant;
    }
  }
  const ScopedEnv unknown("ASSAY_SPLIT_ORDER", "diagonal");
  kernels::GemmCall call;
  call.dtype = kernels::GemmDtype::f16;
  call.m = 300;
  call.n = 1000;
  call.k = 4104;
  call.a = call.b = call.c = reinterpret_cast<void*>(256);
  const kernels::GemmPlan plan = kernels::plan_gemm(call, "wgmma_128x64_k3");
  EXPECT_TRUE(plan.name.empty()) << plan.name;
  EXPECT_NE(plan.unavailable.find("ASSAY_SPLIT_ORDER='diagonal'"), std::string::npos) << plan.unavailable;
}

TEST(SplitConfigs, Fp8AndOtherTilesAreSkippedWithTheReason) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  GemmProblem p(128, 128, 1024, DType::f8e4m3);
  const auto inputs = p.make_inputs(1);
  for (const auto& [config, reason] : {std::pair{"assay@wgmma_128x64_k2", "split-K"},
                                       std::pair{"assay@wgmma_128x128_sk", "stream-K"}}) {
    auto inst = find_backend(config)->instantiate(p, inputs);
    try {
      inst->call(nullptr);
      ADD_FAILURE() << "expected a SkipError: " << config;
    } catch (const SkipError& e) {
      EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    }
  }
  // A tile without split instances, pinned through the API (no backend carries its name).
  kernels::GemmCall call;
  call.m = call.n = 128;
  call.k = 1024;
  call.a = call.b = call.c = reinterpret_cast<void*>(256);
  const kernels::GemmPlan plan = kernels::plan_gemm(call, "wgmma_128x256_k2");
  EXPECT_TRUE(plan.name.empty());
  EXPECT_NE(plan.unavailable.find("split-K"), std::string::npos) << plan.unavailable;
}

// A split plan's workspace is laid out for its m x n: a launch at another shape is refused before
// any kernel runs (it would have written partials over counters never zeroed again).
TEST(SplitConfigs, LaunchAtAnotherShapeIsRefused) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  kernels::GemmCall call;
  call.m = call.n = 512;
  call.k = 1024;
  call.a = call.b = call.c = reinterpret_cast<void*>(256);
  const kernels::GemmPlan plan = kernels::plan_gemm(call, "wgmma_128x64_k2");
  ASSERT_FALSE(plan.name.empty()) << plan.unavailable;
  ASSERT_NE(plan.workspace, nullptr);
  call.m = 128;
  EXPECT_EQ(kernels::launch_gemm(plan, call, nullptr), cudaErrorInvalidValue);
}

// Split-K walks its units (tile, split) in 32 bits (k_segments.hpp), so a launch with more than INT_MAX of
// them is refused by hopper::launch's own checks, before any CUDA call (no device needed; a kernel
// launched there would write partials through the fake workspace).
TEST(SplitConfigs, UnitsPastInt32AreRefused) {
  kernels::hopper::Split split;
  split.counters = reinterpret_cast<unsigned*>(256);
  split.slots = reinterpret_cast<float*>(256);
  split.bytes = static_cast<std::size_t>(-1);
  const int m = 1 << 20, n = 1 << 20, k = 1 << 17;  // 2^27 tiles of 128 x 64; up to 2048 splits
  void* p = reinterpret_cast<void*>(256);
  split.splits = 16;  // 2^31 units
  EXPECT_EQ(kernels::hopper::launch(kernels::hopper::Elem::f16, 128, 64, 1, m, n, k, p, p, p, nullptr, nullptr, nullptr, split),
            cudaErrorInvalidValue);
  split.splits = 1 << 11;  // and far past it (a 64-bit product)
  EXPECT_EQ(kernels::hopper::launch(kernels::hopper::Elem::bf16, 64, 128, 1, m, n, k, p, p, p, nullptr, nullptr, nullptr, split),
            cudaErrorInvalidValue);
}

// Dimensions whose rounding up to a tile would overflow the kernel's int counts are refused with
// the limit, pinned or auto (auto then takes the mma.sync kernel), before anything is allocated.
TEST(HopperPlacement, DimensionsNearIntMaxAreRefused) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  kernels::GemmCall call;
  call.m = 2147483647;
  call.n = 64;
  call.k = 64;
  call.a = call.b = call.c = reinterpret_cast<void*>(256);
  const kernels::GemmPlan pinned = kernels::plan_gemm(call, "wgmma_128x64");
  EXPECT_TRUE(pinned.name.empty());
  EXPECT_NE(pinned.unavailable.find("up to"), std::string::npos) << pinned.unavailable;
  const kernels::GemmPlan automatic = kernels::plan_gemm(call, "auto");
  EXPECT_NE(automatic.kernel, kernels::GemmKernel::hopper) << automatic.name;
}

// The heuristic splits a few tiles over a deep K (a quarter of the SMs' worth of 128 x 64 tiles),
// the mlp's second layer (16 tiles of 64 x 128) on the 64-row tile, and 128 x 128 tiles over two tile
// rows in two.
TEST(SplitConfigs, AutoSplitsFewTilesOverDeepK) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const std::string variant = check_shape("assay", DType::bf16, 375, 1216, 7264, 320, 8);
  EXPECT_NE(variant.find("_k"), std::string::npos) << variant;
  const std::string decoder = check_shape("assay", DType::f16, 64, 2048, 8192, 321, 8);
  EXPECT_NE(decoder.find("64x128x64"), std::string::npos) << decoder;
  EXPECT_NE(decoder.find("_k4"), std::string::npos) << decoder;
  // Split-K in two of 128 x 128 tiles over two tile rows (stream-K's old pick: docs/kernels/hopper-gemm.md,
  // "Split-K's order"), lines along columns (B is read more); 128 x 64 tiles of a tall m, along rows.
  const std::string two = check_shape("assay", DType::bf16, 243, 4128, 12096, 323, 8);
  EXPECT_NE(two.find("128x128x64_s6_k2_"), std::string::npos) << two;
  const std::string rows = check_shape("assay", DType::f16, 638, 256, 5504, 324, 8);
  EXPECT_NE(rows.find("r_"), std::string::npos) << rows;
}

// Over two or four row tiles the heuristic pairs the 128-row tile (B multicast to both), and the
// pair's output is right where the second tile of the pair is mostly rows past m.
TEST(HopperPlacement, AutoPairsFewRowTiles) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  const std::string two = check_shape("assay", DType::f16, 146, 6080, 7488, 322, 8);
  EXPECT_NE(two.find("_c2"), std::string::npos) << two;
  const std::string four = check_shape("assay", DType::bf16, 409, 7328, 4096, 323, 8);  // alone before the rule
  EXPECT_NE(four.find("_c2"), std::string::npos) << four;
}

// Over four row tiles the 128- and 192-wide tiles run in clusters of four where their tiles fit one
// wave of them (the device's count; 120 CTAs on the H100/H200), in pairs where they do not; the
// output is right with the fourth tile mostly rows past m.
TEST(HopperPlacement, AutoRunsClustersOfFour) {
  ASSAY_REQUIRE_GPU();
  if (!device_is_hopper()) GTEST_SKIP() << "the Hopper kernel needs compute capability 9.0";
  int device = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  const int quads = assay::kernels::hopper::cluster4_ctas(device);
  std::printf("clusters of four: %d CTAs a wave\n", quads);
  EXPECT_GT(quads, 0);
  EXPECT_EQ(quads % 4, 0);
  struct Shape {
    DType dtype;
    int m, n, k, tiles;
  };
  for (const Shape s : {Shape{DType::f16, 399, 2928, 14240, 92}, Shape{DType::bf16, 492, 4464, 12096, 96},
                        Shape{DType::f16, 388, 4112, 4096, 132}}) {
    const std::string v = check_shape("assay", s.dtype, s.m, s.n, s.k, 324, 8);
    EXPECT_NE(v.find(s.tiles <= quads ? "_c4" : "_c2"), std::string::npos) << v << " with " << quads;
  }
}

// The fp8 baseline: cuBLASLt against the same oracle, where it accepts the shape.
TEST(CublasFp8, MatchesOracle) {
  ASSAY_REQUIRE_GPU();
  const int shapes[][3] = {{16, 16, 16}, {1000, 1008, 1024}, {130, 264, 4112}};
  for (const auto& s : shapes) {
    try {
      check_shape("cublas", DType::f8e4m3, s[0], s[1], s[2], 400, 0);
    } catch (const SkipError& e) {
      GTEST_SKIP() << e.what();
    }
  }
}

}  // namespace
