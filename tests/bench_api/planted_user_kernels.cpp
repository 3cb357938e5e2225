// assay-user-kernels-testbed: a program made like a user's (assay_add_benchmark, include/assay/bench.hpp)
// whose CPU kernels are broken on purpose, one way each, for tests/unit/test_user_kernels.cpp.
// Each must be caught by the case protocol, never timed as if it were right.
#include <assay/bench.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

namespace {

using assay::bench::Call;
using assay::bench::DType;

// C = A·B in f32, rows [0, rows).
void gemm_rows(const Call& c, std::int64_t rows) {
  const std::int64_t n = c["n"], k = c["k"];
  const float* a = c.inputs[0].as<float>();
  const float* b = c.inputs[1].as<float>();
  float* out = c.output.as<float>();
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (std::int64_t p = 0; p < k; ++p) acc += static_cast<double>(a[i * k + p]) * b[p * n + j];
      out[i * n + j] = static_cast<float>(acc);
    }
}

void correct(const Call& c) { gemm_rows(c, c["m"]); }

// Right when m is a multiple of 8; otherwise the last rows are never written.
void edge(const Call& c) { gemm_rows(c, c["m"] - c["m"] % 8); }

// Writes far past its output: the worker dies of SIGSEGV, the suite goes on.
void out_of_bounds(const Call& c) {
  volatile float* out = c.output.as<float>();
  out[std::size_t{1} << 40] = 1.0f;
  correct(c);
}

// Wrong on every second call.
void flaky(const Call& c) {
  static int calls = 0;
  correct(c);
  if (++calls % 2 == 0) c.output.as<float>()[0] += 1.0f;
}

// Computes once per input buffer, then returns what it computed, whatever the inputs now hold.
void caching(const Call& c) {
  static std::map<const void*, std::vector<float>> cache;
  auto& kept = cache[c.inputs[0].data];
  const std::size_t n = c.output.numel();
  if (kept.empty()) {
    correct(c);
    kept.assign(c.output.as<float>(), c.output.as<float>() + n);
  }
  std::memcpy(c.output.data, kept.data(), n * sizeof(float));
}

// Works only when its output was poisoned (as before a checked call); a timed call returns at
// once, faster than any CPU can multiply these matrices.
void lazy(const Call& c) {
  if (std::isnan(c.output.as<float>()[0])) correct(c);
}

// The fp64 oracle of the z = 2x + y workloads below.
void scale_add_reference(const assay::bench::Params&, const std::vector<std::vector<double>>& in,
                         std::vector<double>& out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = 2.0 * in[0][i] + in[1][i];
}

// A workload of its own: z = 2x + y.
void scale_add(const Call& c) {
  const float* x = c.inputs[0].as<float>();
  const float* y = c.inputs[1].as<float>();
  float* z = c.output.as<float>();
  for (std::int64_t i = 0; i < c["n"]; ++i) z[i] = 2.0f * x[i] + y[i];
}

using assay::bench::Device;
ASSAY_BENCH_KERNEL({.name = "user-gemm", .workload = "gemm", .dtypes = {DType::f32}, .launch = correct, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-gemm-edge", .workload = "gemm", .dtypes = {DType::f32}, .launch = edge, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-gemm-oob", .workload = "gemm", .dtypes = {DType::f32}, .launch = out_of_bounds, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-gemm-flaky", .workload = "gemm", .dtypes = {DType::f32}, .launch = flaky, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-gemm-cache", .workload = "gemm", .dtypes = {DType::f32}, .launch = caching, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-gemm-lazy", .workload = "gemm", .dtypes = {DType::f32}, .launch = lazy, .device = Device::cpu});

ASSAY_BENCH_WORKLOAD({
    .name = "scale_add",
    .description = "z = 2x + y",
    .params = {"n"},
    .dtypes = {DType::f32, DType::f16},
    .inputs = {{"x", [](const assay::bench::Params& p) { return std::vector<std::int64_t>{p.at("n")}; }},
               {"y", [](const assay::bench::Params& p) { return std::vector<std::int64_t>{p.at("n")}; }}},
    .output = {"z", [](const assay::bench::Params& p) { return std::vector<std::int64_t>{p.at("n")}; }},
    .flops = [](const assay::bench::Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    .reference = scale_add_reference,
});
ASSAY_BENCH_KERNEL({.name = "user-scale-add", .workload = "scale_add", .dtypes = {DType::f32}, .launch = scale_add,
                    .device = Device::cpu});

// The same computation with a trusted backend as its oracle instead of a host function.
std::vector<std::int64_t> n_of(const assay::bench::Params& p) { return {p.at("n")}; }
ASSAY_BENCH_WORKLOAD({
    .name = "scale_add_trusted",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", n_of}, {"y", n_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    .reference_backend = "trusted-scale-add",
});
// An oracle that throws what is not a std::exception: the case fails with a reason; the worker
// had died of std::terminate (signal 6).
ASSAY_BENCH_WORKLOAD({
    .name = "scale_add_oracle_throws",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", n_of}, {"y", n_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    .reference = [](const assay::bench::Params&, const std::vector<std::vector<double>>&,
                    std::vector<double>&) { throw 42; },
});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-thrown-at", .workload = "scale_add_oracle_throws", .dtypes = {DType::f32},
                    .launch = scale_add, .device = Device::cpu});

void scale_add_off(const Call& c) {
  scale_add(c);
  c.output.as<float>()[c["n"] - 1] *= 1.5f;
}
ASSAY_BENCH_KERNEL({.name = "trusted-scale-add", .workload = "scale_add_trusted", .dtypes = {DType::f32},
                    .launch = scale_add, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-right", .workload = "scale_add_trusted", .dtypes = {DType::f32},
                    .launch = scale_add, .device = Device::cpu});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-last-wrong", .workload = "scale_add_trusted", .dtypes = {DType::f32},
                    .launch = scale_add_off, .device = Device::cpu});

// Inputs whose sizes wrap a 64-bit count (n^3 elements at n = 2^21), a flops count that is NaN, and an
// oracle that leaves its last element unwritten: each an error naming the callback or tensor, not a
// crash in assay's input generation, a result no reader accepts, or a check against a 0 never computed.
std::vector<std::int64_t> cube_of(const assay::bench::Params& p) { return {p.at("n"), p.at("n"), p.at("n")}; }
ASSAY_BENCH_WORKLOAD({
    .name = "cube",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", cube_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params& p) { return static_cast<double>(p.at("n")); },
    .reference = [](const assay::bench::Params&, const std::vector<std::vector<double>>&,
                    std::vector<double>& out) { std::fill(out.begin(), out.end(), 0.0); },
});
void zeros(const Call& c) { std::fill_n(c.output.as<float>(), c.output.numel(), 0.0f); }
ASSAY_BENCH_KERNEL({.name = "user-cube", .workload = "cube", .dtypes = {DType::f32}, .launch = zeros, .device = Device::cpu});
ASSAY_BENCH_WORKLOAD({
    .name = "scale_add_nan_flops",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", n_of}, {"y", n_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params&) { return std::nan(""); },
    .reference = scale_add_reference,
});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-nan-flops", .workload = "scale_add_nan_flops", .dtypes = {DType::f32},
                    .launch = scale_add, .device = Device::cpu});
ASSAY_BENCH_WORKLOAD({
    .name = "scale_add_partial_oracle",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", n_of}, {"y", n_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    .reference =
        [](const assay::bench::Params&, const std::vector<std::vector<double>>& in, std::vector<double>& out) {
          for (std::size_t i = 0; i + 1 < out.size(); ++i) out[i] = 2.0 * in[0][i] + in[1][i];
        },
});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-partial-oracle", .workload = "scale_add_partial_oracle",
                    .dtypes = {DType::f32}, .launch = scale_add, .device = Device::cpu});

// Inputs that ignore the seed: the recheck's "fresh" inputs equal the timed ones, and the record says so.
ASSAY_BENCH_WORKLOAD({
    .name = "scale_add_fixed_inputs",
    .params = {"n"},
    .dtypes = {DType::f32},
    .inputs = {{"x", n_of}, {"y", n_of}},
    .output = {"z", n_of},
    .flops = [](const assay::bench::Params& p) { return 2.0 * static_cast<double>(p.at("n")); },
    .generate = [](const assay::bench::Params&, std::size_t index, std::uint64_t,
                   std::vector<double>& v) { std::fill(v.begin(), v.end(), 0.5 + static_cast<double>(index)); },
    .reference = scale_add_reference,
});
ASSAY_BENCH_KERNEL({.name = "user-scale-add-fixed-inputs", .workload = "scale_add_fixed_inputs",
                    .dtypes = {DType::f32}, .launch = scale_add, .device = Device::cpu});

ASSAY_BENCH_BENCHMARK({.name = "scale-add",
                       .workload = "scale_add",
                       .backends = {"user-scale-add"},
                       .dtypes = {DType::f32},
                       .axes = {{"n", {1000, 4096}}}});
// An axis of one value (it failed to compile: {64} was ambiguous with a vector of const char*).
ASSAY_BENCH_BENCHMARK({.name = "scale-add-one",
                       .workload = "scale_add",
                       .backends = {"user-scale-add"},
                       .dtypes = {DType::f32},
                       .axes = {{"n", {64}}}});

}  // namespace
