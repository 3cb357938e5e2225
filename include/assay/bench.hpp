#pragma once
// assay/bench.hpp: bring your own kernel (docs/your-kernel.md).
//
// A program that includes this header and links assay::bench (CMake: find_package(assay),
// assay_add_benchmark(NAME SOURCES ...)) is the assay command line with the user's kernels,
// workloads and benchmarks added: `./my_bench` runs the registered benchmarks like a suite,
// `./my_bench run suite.toml`, `./my_bench list`, `./my_bench compare A B` do what assay does.
// The same check (fp64 oracle, poisoned outputs, two check calls, a recheck on fresh inputs
// after the timed calls), the same samplers and stopping rule, crash isolation and the same
// results document: `assay compare` and `assay history` work on what it writes.
//
//   #include <assay/bench.hpp>
//   static void my_gemm(const assay::bench::Call& c) {          // C = A·B on c.stream
//     launch_my_gemm(c.inputs[0].data, c.inputs[1].data, c.output.data, c["m"], c["n"], c["k"], c.stream);
//   }
//   ASSAY_BENCH_KERNEL({.name = "my-gemm", .workload = "gemm", .dtypes = {assay::bench::DType::f16},
//                       .launch = my_gemm});
//   ASSAY_BENCH_BENCHMARK({.name = "square", .workload = "gemm", .backends = {"cublas", "my-gemm"},
//                          .baseline = "cublas", .dtypes = {assay::bench::DType::f16},
//                          .axes = {{"m", {1024, 4096}}, {"n", {"m"}}, {"k", {"m"}}}});
//
// Only the standard library is needed to compile against this header.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace assay::bench {

enum class DType { f32, f16, bf16 };
enum class Device { cpu, cuda };
using Params = std::map<std::string, std::int64_t>;

// One tensor of a call: device memory for a cuda kernel, host memory for a cpu kernel. Dense,
// row-major, in the case's dtype (f16/bf16 as their 16-bit patterns).
struct Tensor {
  void* data = nullptr;
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::size_t numel() const {
    std::size_t n = 1;
    for (auto d : shape) n *= static_cast<std::size_t>(d);
    return n;
  }
  template <class T>
  T* as() const { return static_cast<T*>(data); }
};

// What a launch gets: the inputs in the workload's order, the output to overwrite completely,
// and for a cuda kernel the stream to enqueue on (a cudaStream_t). A cuda launch must enqueue
// all its work on that stream and return; assay times the stream. Throwing an exception makes
// the case an error with its message.
struct Call {
  const Params* params = nullptr;
  DType dtype = DType::f32;
  std::vector<Tensor> inputs;
  Tensor output;
  void* stream = nullptr;
  std::int64_t operator[](const std::string& name) const { return params->at(name); }
};

// A user's implementation of a workload: one backend of suites, named `name`.
struct Kernel {
  std::string name;      // lowercase letters, digits, '-', '_', '.', '@'; not a built backend's name
  std::string workload;  // "gemm", "mlp", "attention" or a Workload registered here
  std::vector<DType> dtypes;
  std::function<void(const Call&)> launch;
  Device device = Device::cuda;
  std::string description;
};

// A tensor of a new workload: its name and its shape as a function of the parameters.
struct TensorSpec {
  std::string name;
  std::function<std::vector<std::int64_t>(const Params&)> shape;
};

// A new workload: its parameters, tensors, FLOPs and bytes, inputs and oracle.
struct Workload {
  std::string name;  // lowercase letters, digits, '_'; not a built workload's name
  std::string description;
  std::vector<std::string> params;  // names, in the order the case id lists them
  std::vector<DType> dtypes;
  std::vector<TensorSpec> inputs;
  TensorSpec output;
  std::function<double(const Params&)> flops;  // floating-point operations of one call
  // Bytes one call must move at least; empty: each input read once and the output written once.
  std::function<double(const Params&, DType)> bytes;
  // Values of input `index` (numel of them), before rounding to the dtype; empty: uniform in
  // [-1, 1) from assay's seeded generator. Must depend on the seed only (the same for every backend),
  // and should change with it: the recheck after the timed calls runs on another seed's inputs, and
  // inputs that ignore the seed make it a recheck on the timed inputs ("timed" in the record).
  std::function<void(const Params&, std::size_t index, std::uint64_t seed, std::vector<double>& values)> generate;
  // The oracle, in fp64: the output from the inputs (their values after rounding to the dtype).
  std::function<void(const Params&, const std::vector<std::vector<double>>& inputs, std::vector<double>& output)>
      reference;
  // Instead of `reference`: a registered Kernel of this workload trusted as the oracle; its output
  // on the same inputs is the reference ("backend:NAME" in the check record). bench::main refuses
  // any other name; that kernel's own cases are errors (it would be checked against itself).
  std::string reference_backend;
  // Allowed values of a parameter; absent: [1, 2^31-1].
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> ranges;
};

// One axis: integer values, or one expression over other axes ("m", "2*k").
struct Axis {
  std::string name;
  std::vector<std::int64_t> values;
  std::string expression;
  // {"m", {64}} and {"m", {64, 128}}: a list (one value too); {"n", {"m"}} or {"n", "2*m"}: an
  // expression. (A vector of const char* made {"m", {64}} ambiguous: vector(size_type).)
  Axis(std::string n, std::initializer_list<std::int64_t> v) : name(std::move(n)), values(v) {}
  Axis(std::string n, std::vector<std::int64_t> v) : name(std::move(n)), values(std::move(v)) {}
  Axis(std::string n, const char* e) : name(std::move(n)), expression(e) {}
  Axis(std::string n, std::string e) : name(std::move(n)), expression(std::move(e)) {}
};

// What the program runs when it is started without a subcommand: one [[bench]] of a suite
// (docs/suite-format.md), like NVBENCH_BENCH with its axes.
struct Benchmark {
  std::string name;
  std::string workload;
  std::vector<std::string> backends;
  std::string baseline;  // empty: none
  std::vector<DType> dtypes;
  std::vector<Axis> axes;
  Params check_shape;  // parameters overridden for the check; empty: the measured shape
  double atol = -1, rtol = -1;  // check tolerances; negative: the suite defaults
  std::string mode;             // cold | hot | graph | host; empty: cold
};

// Registration, before main (the macros below) or at the start of main before bench::main.
// A name given twice, or a bad one, stops the program with a message at bench::main.
void register_kernel(Kernel kernel);
void register_workload(Workload workload);
void register_benchmark(Benchmark benchmark);

// The assay command line with everything registered. Without a subcommand it runs the
// registered benchmarks (the suite is written beside the results: OUT/<program>.suite.toml)
// and takes `assay run`'s flags. Returns assay's exit code (README "Exit codes").
int main(int argc, char** argv);

}  // namespace assay::bench

#define ASSAY_BENCH_CAT2(a, b) a##b
#define ASSAY_BENCH_CAT(a, b) ASSAY_BENCH_CAT2(a, b)
#define ASSAY_BENCH_KERNEL(...)                                                  \
  static const bool ASSAY_BENCH_CAT(assay_bench_kernel_, __LINE__) =             \
      (::assay::bench::register_kernel(::assay::bench::Kernel __VA_ARGS__), true)
#define ASSAY_BENCH_WORKLOAD(...)                                                \
  static const bool ASSAY_BENCH_CAT(assay_bench_workload_, __LINE__) =           \
      (::assay::bench::register_workload(::assay::bench::Workload __VA_ARGS__), true)
#define ASSAY_BENCH_BENCHMARK(...)                                               \
  static const bool ASSAY_BENCH_CAT(assay_bench_benchmark_, __LINE__) =          \
      (::assay::bench::register_benchmark(::assay::bench::Benchmark __VA_ARGS__), true)
#define ASSAY_BENCH_MAIN() \
  int main(int argc, char** argv) { return ::assay::bench::main(argc, argv); }
