// saxpy, z = a·x + y with a = 2: a workload assay does not have, defined here with its bytes,
// FLOPs and fp64 oracle, and a CPU kernel for it. `./cpp_saxpy --device cpu` runs the benchmark
// below; with a GPU, saxpy_cuda.cu adds a CUDA kernel to it.
#include <assay/bench.hpp>

#include <vector>

namespace {

using namespace assay::bench;

std::vector<std::int64_t> vector_of_n(const Params& p) { return {p.at("n")}; }

ASSAY_BENCH_WORKLOAD({
    .name = "saxpy",
    .description = "z = 2x + y over n elements",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", vector_of_n}, {"y", vector_of_n}},
    .output = {"z", vector_of_n},
    .flops = [](const Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    // x and y read once, z written once: the roofline of saxpy is its bandwidth.
    .bytes = [](const Params& p, DType) { return 12.0 * static_cast<double>(p.at("n")); },
    .reference =
        [](const Params&, const std::vector<std::vector<double>>& in, std::vector<double>& z) {
          for (std::size_t i = 0; i < z.size(); ++i) z[i] = 2.0 * in[0][i] + in[1][i];
        },
});

void saxpy_cpu(const Call& c) {
  const float* x = c.inputs[0].as<float>();
  const float* y = c.inputs[1].as<float>();
  float* z = c.output.as<float>();
  for (std::int64_t i = 0, n = c["n"]; i < n; ++i) z[i] = 2.0f * x[i] + y[i];
}

ASSAY_BENCH_KERNEL({.name = "saxpy-cpu", .workload = "saxpy", .dtypes = {DType::f32}, .launch = saxpy_cpu,
                    .device = Device::cpu, .description = "a plain loop"});

// Sizes from L2-resident to DRAM-bound; n = 1000003 is no multiple of any vector width.
ASSAY_BENCH_BENCHMARK({.name = "saxpy",
                       .workload = "saxpy",
                       .backends = {"saxpy-cpu"
#ifdef SAXPY_WITH_CUDA
                                    , "saxpy-cuda"
#endif
                       },
                       .dtypes = {DType::f32},
                       .axes = {{"n", {1 << 16, 1000003, 1 << 24}}}});

}  // namespace
