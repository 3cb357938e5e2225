// assay::bench::main: the assay command line with a program's kernels, workloads and
// benchmarks added (include/assay/bench.hpp, docs/your-kernel.md).
#include <assay/bench.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "backends/backend.hpp"
#include "bench_api/user_backend.hpp"
#include "bench_api/user_workload.hpp"
#include "cli/commands.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace assay::bench {

namespace {

struct Registry {
  std::vector<Kernel> kernels;
  std::vector<Workload> workloads;
  std::vector<Benchmark> benchmarks;
};

Registry& registry() {
  static Registry r;
  return r;
}

const char* dtype_text(DType t) { return t == DType::f16 ? "f16" : t == DType::bf16 ? "bf16" : "f32"; }

// A TOML basic string: the registered names are checked by the suite parser afterwards.
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

template <class T, class F>
std::string list(const std::vector<T>& v, F text) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + text(v[i]);
  return s + "]";
}

// The program's file name as a suite name (letters, digits, '.', '_' and '-', not starting with
// '.', at most 100 characters): any other character becomes '_'.
std::string suite_name_of(const std::string& program) {
  std::string n;
  for (char c : program.substr(0, 100))
    n += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (n.empty() || n.front() == '.') n.insert(n.begin(), '_');
  return n.substr(0, 100);
}

// The suite of the registered benchmarks (docs/suite-format.md). Tolerances keep every digit they
// were registered with (the stream's default of 6 had rounded 1.0000001e-3 to 0.001).
std::string suite_text(const std::string& program) {
  std::ostringstream t;
  t.precision(std::numeric_limits<double>::max_digits10);
  t << "# Written by " << program << " from its registered benchmarks (include/assay/bench.hpp).\n";
  t << "[suite]\nname = " << quoted(suite_name_of(program)) << "\n";
  for (const Benchmark& b : registry().benchmarks) {
    t << "\n[[bench]]\nname = " << quoted(b.name) << "\nworkload = " << quoted(b.workload) << "\n";
    t << "backends = " << list(b.backends, quoted) << "\n";
    if (!b.baseline.empty()) t << "baseline = " << quoted(b.baseline) << "\n";
    t << "dtype = " << list(b.dtypes, [](DType d) { return quoted(dtype_text(d)); }) << "\n";
    if (!b.mode.empty()) t << "[bench.measure]\nmode = " << quoted(b.mode) << "\n";
    if (b.atol >= 0 || b.rtol >= 0 || !b.check_shape.empty()) {
      t << "[bench.check]\n";
      if (b.atol >= 0) t << "atol = " << b.atol << "\n";
      if (b.rtol >= 0) t << "rtol = " << b.rtol << "\n";
      if (!b.check_shape.empty()) {
        t << "shape = {";
        bool first = true;
        for (const auto& [k, v] : b.check_shape) t << (first ? " " : ", ") << k << " = " << v, first = false;
        t << " }\n";
      }
    }
    t << "[bench.axes]\n";
    for (const Axis& a : b.axes) {
      if (!a.expression.empty()) t << a.name << " = " << quoted(a.expression) << "\n";
      else t << a.name << " = " << list(a.values, [](std::int64_t v) { return std::to_string(v); }) << "\n";
    }
  }
  return t.str();
}

// Workloads and kernels into assay's registries, once; throws InputError on a bad one.
void install_registrations() {
  static std::vector<std::unique_ptr<assay::Workload>> workloads;
  static std::vector<std::unique_ptr<assay::Backend>> backends;
  std::vector<const assay::Workload*> w;
  for (const Workload& def : registry().workloads) {
    if (find_workload(def.name)) throw InputError("workload '" + def.name + "' is registered twice or is built into assay");
    workloads.push_back(std::make_unique<bench_api::UserWorkload>(def));
    w.push_back(workloads.back().get());
    add_workloads({w.back()});
  }
  std::set<std::string> names;
  std::vector<const assay::Backend*> b;
  for (const Kernel& k : registry().kernels) {
    if (find_backend(k.name) || !names.insert(k.name).second)
      throw InputError("kernel '" + k.name + "' is registered twice or has a built backend's name");
    if (!find_workload(k.workload))
      throw InputError("kernel '" + k.name + "': workload '" + k.workload + "' is neither built nor registered");
    backends.push_back(std::make_unique<bench_api::UserBackend>(k));
    b.push_back(backends.back().get());
  }
  add_backends(b);
  // A backend oracle must be a registered kernel of the workload (built backends implement only
  // assay's own workloads): checked here, once, rather than as an error in every case.
  for (const Workload& def : registry().workloads) {
    if (def.reference_backend.empty()) continue;
    const auto oracle = std::find_if(registry().kernels.begin(), registry().kernels.end(),
                                     [&](const Kernel& k) { return k.name == def.reference_backend; });
    if (oracle == registry().kernels.end() || oracle->workload != def.name)
      throw InputError("workload '" + def.name + "': reference_backend '" + def.reference_backend +
                       "' is not a kernel registered for it");
  }
}

bool is_subcommand(const std::string& a) {
  static const std::set<std::string> known = {"run",    "check",  "merge", "sessions", "list",     "compare",
                                              "ab",     "history", "doctor", "report",  "tune",     "profile",
                                              "graph",  "__worker", "--help", "-h",      "--version"};
  return known.count(a) > 0;
}

}  // namespace

void register_kernel(Kernel kernel) { registry().kernels.push_back(std::move(kernel)); }
void register_workload(Workload workload) { registry().workloads.push_back(std::move(workload)); }
void register_benchmark(Benchmark benchmark) { registry().benchmarks.push_back(std::move(benchmark)); }

int main(int argc, char** argv) {
  const std::string program = std::filesystem::path(argc > 0 ? argv[0] : "bench").filename().string();
  try {
    install_registrations();
  } catch (const Error& e) {
    std::cerr << program << ": " << e.what() << "\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  if (argc >= 2 && is_subcommand(argv[1])) return cli::run_cli(argc, argv);

  // No subcommand: `run` on the registered benchmarks, with the flags given.
  if (registry().benchmarks.empty()) {
    std::cerr << program << ": no benchmark is registered (ASSAY_BENCH_BENCHMARK); give a subcommand, e.g. "
              << program << " run SUITE.toml\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  std::string out = "assay-results";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--out") out = argv[i + 1];
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--out=", 0) == 0) out = std::string(argv[i]).substr(6);
  const std::filesystem::path suite = std::filesystem::path(out) / (program + ".suite.toml");
  try {
    std::filesystem::create_directories(out);
    write_file_atomically(suite, suite_text(program));
  } catch (const std::exception& e) {
    std::cerr << program << ": --out '" << out << "': cannot write the suite there: " << e.what() << "\n";
    return static_cast<int>(ExitCode::bad_input);
  }
  std::vector<std::string> args = {argv[0], "run", suite.string()};
  for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
  std::vector<char*> ptrs;
  for (auto& a : args) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  return cli::run_cli(static_cast<int>(args.size()), ptrs.data());
}

}  // namespace assay::bench
