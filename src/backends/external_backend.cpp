#include "backends/external_backend.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/temp_dir.hpp"

namespace assay {

namespace fs = std::filesystem;

namespace {

// The adapters folder: $ASSAY_ADAPTERS_DIR, else the one of the binary's tree (a source tree's
// adapters/, an installed prefix's share/assay/adapters), else ./adapters. A folder counts only
// when it holds assay's adapter package: a user project's own adapters/ in the working folder
// must not replace the shipped ones, nor a checkout's pair with another build's binary.
std::string adapters_dir() {
  if (const char* env = std::getenv("ASSAY_ADAPTERS_DIR"); env && *env) return env;
  std::vector<fs::path> candidates;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
      for (const char* sub : {"adapters", "share/assay/adapters"}) candidates.push_back(p / sub);
  candidates.push_back(fs::current_path() / "adapters");
  for (const auto& c : candidates)
    if (fs::is_regular_file(c / "assay_adapter" / "protocol.py", ec)) return c.string();
  return {};
}

void write_bytes(const fs::path& p, const std::byte* data, std::size_t n) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
  if (!f) throw InternalError("cannot write " + p.string());
}

adapter::TensorFile tensor_file(const std::string& name, const fs::path& path, const HostTensor& t) {
  return {name, path.string(), std::string(dtype_name(t.dtype)), t.shape};
}

std::string tail(const std::string& s, std::size_t n = 600) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

// The end of an adapter's stderr for a case's reason, which is one line (docs/adapters.md): its
// lines joined by " | ", blank ones dropped.
std::string stderr_in_reason(const std::string& err) {
  std::string out, line;
  for (const char c : tail(err) + "\n") {
    if (c != '\n' && c != '\r') {
      line += c;
      continue;
    }
    if (line.find_first_not_of(" \t") != std::string::npos) out += (out.empty() ? "" : " | ") + line;
    line.clear();
  }
  return out;
}

}  // namespace

bool ExternalBackend::supports(const std::string& workload, DType dtype) const {
  // The adapter protocol (and so every adapter) knows no fp8 tensors or scale inputs yet.
  if (dtype == DType::f8e4m3) return false;
  for (const auto& w : spec_.workloads)
    if (w == workload) return true;
  return false;
}

std::vector<std::string> ExternalBackend::command() const {
  if (const char* env = std::getenv(spec_.env_var.c_str()); env && *env) {
    std::vector<std::string> words;
    try {
      words = split_command(env);
    } catch (const InputError& e) {
      throw InputError(spec_.env_var + ": " + e.what());
    }
    if (words.empty()) throw SkipError(spec_.env_var + " is set but empty");
    return words;
  }
  if (spec_.default_command.empty()) throw SkipError(spec_.env_var + " is not set (this backend has no shipped adapter)");
  std::vector<std::string> argv;
  for (const auto& w : spec_.default_command) {
    if (w.rfind("@adapters/", 0) == 0) {
      const std::string dir = adapters_dir();
      if (dir.empty()) throw SkipError("the adapters folder was not found (set ASSAY_ADAPTERS_DIR)");
      argv.push_back(dir + "/" + w.substr(10));
    } else {
      argv.push_back(w);
    }
  }
  return argv;
}

std::string ExternalBackend::unavailable_reason() const {
  try {
    command();
  } catch (const SkipError& e) {
    return e.what();
  }
  return {};
}

std::unique_ptr<Instance> ExternalBackend::instantiate(const Problem&, const std::vector<HostTensor>&) const {
  throw InternalError("backend '" + spec_.name + "' is an external adapter; it runs through ExternalBackend::run");
}

ExternalBackend::Result ExternalBackend::run(const Problem& problem, const std::vector<HostTensor>& inputs,
                                             const std::string& purpose, const std::string& device,
                                             const adapter::MeasureRequest& measure, double timeout_s,
                                             std::uint64_t seed, const std::vector<HostTensor>* fresh_inputs) const {
  const std::vector<std::string> argv = command();
  const TempDir dir("assay-adapter-");
  adapter::CaseRequest req;
  req.backend = spec_.name;
  req.variant = spec_.variant;
  req.workload = problem.workload();
  req.dtype = std::string(dtype_name(problem.dtype()));
  req.purpose = purpose;
  req.params = problem.params();
  req.seed = seed;
  req.device = device;
  req.measure = measure;
  const auto names = problem.input_names();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const fs::path p = dir.path() / (names.at(i) + ".bin");
    write_bytes(p, inputs[i].data.data(), inputs[i].bytes());
    req.inputs.push_back(tensor_file(names[i], p, inputs[i]));
  }
  if (fresh_inputs)
    for (std::size_t i = 0; i < fresh_inputs->size(); ++i) {
      const fs::path p = dir.path() / (names.at(i) + ".fresh.bin");
      write_bytes(p, (*fresh_inputs)[i].data.data(), (*fresh_inputs)[i].bytes());
      req.fresh_inputs.push_back(tensor_file(names[i], p, (*fresh_inputs)[i]));
    }
  // The output file starts poisoned (all bits set: NaN in every float dtype), so an adapter
  // that does not write it fails the check.
  HostTensor out = problem.output_like();
  const fs::path out_path = dir.path() / (problem.output_name() + ".bin");
  std::fill(out.data.begin(), out.data.end(), std::byte{0xff});
  write_bytes(out_path, out.data.data(), out.bytes());
  req.output = tensor_file(problem.output_name(), out_path, out);

  SubprocessLimits limits;
  limits.timeout_s = timeout_s;
  const SubprocessResult proc = run_subprocess(argv, adapter::case_json(req), limits);
  const std::string who = "adapter '" + argv[0] + (argv.size() > 1 ? " " + argv[1] : "") + "'";
  if (!proc.started) throw InternalError(who + ": " + proc.error);
  if (proc.timed_out)
    throw InternalError(who + " timed out after " + std::to_string(static_cast<int>(limits.timeout_s)) +
                        " s (adapter_timeout_s) and was killed; stderr: " + stderr_in_reason(proc.err_tail));
  if (proc.stdout_overflow)
    throw InternalError(who + " flooded stdout (more than " + std::to_string(limits.max_stdout_bytes) +
                        " bytes) and was killed");
  adapter::Reply reply;
  try {
    reply = adapter::parse_reply(proc.out, purpose);
  } catch (const InternalError& e) {
    if (proc.exit_code != 0)
      throw InternalError(who + " exited with " +
                          (proc.signal ? "signal " + std::to_string(proc.signal) : "code " + std::to_string(proc.exit_code)) +
                          "; stderr: " + stderr_in_reason(proc.err_tail));
    throw InternalError(who + ": " + e.what());
  }
  if (reply.status == "unavailable") throw SkipError(spec_.name + " unavailable: " + reply.message);
  if (reply.status == "error") throw InternalError(who + " reported an error: " + reply.message);
  if (proc.exit_code != 0 || proc.signal)
    throw InternalError(who + " replied ok but " +
                        (proc.signal ? "died of signal " + std::to_string(proc.signal) : "exited with code " + std::to_string(proc.exit_code)));

  std::error_code ec;
  const auto size = fs::file_size(out_path, ec);
  if (ec || size != out.bytes())
    throw InternalError(who + " wrote " + (ec ? std::string("no") : std::to_string(size)) + " bytes to " +
                        problem.output_name() + ", expected " + std::to_string(out.bytes()) + " (" +
                        req.output.dtype + " " + problem.shape_string() + ")");
  std::ifstream f(out_path, std::ios::binary);
  f.read(reinterpret_cast<char*>(out.data.data()), static_cast<std::streamsize>(out.bytes()));
  if (!f) throw InternalError(who + ": cannot read its output file");

  Result r{std::move(reply), std::move(out), {}};
  r.wall_s = proc.wall_s;
  r.record.command = argv;
  r.record.versions = r.reply.versions;
  r.record.summary_ms = r.reply.summary_ms;
  r.record.throughput = r.reply.throughput;
  r.record.peak_memory_bytes = r.reply.peak_memory_bytes;
  r.record.stderr_tail = tail(proc.err_tail, 2000);
  return r;
}

const std::vector<ExternalBackendSpec>& external_backend_specs() {
  const std::vector<std::string> all = {"gemm", "mlp", "attention"};
  // PyTorch eager and torch.compile also run the transformer block (adapters/torch_adapter.py).
  const std::vector<std::string> torch_all = {"gemm", "mlp", "attention", "block"};
  static const std::vector<ExternalBackendSpec> specs = {
      {"torch", "PyTorch eager (adapters/torch_adapter.py)", "TORCH_BENCH_CMD", "eager",
       {"python3", "@adapters/torch_adapter.py"}, torch_all},
      {"torch-compile", "torch.compile, default mode", "TORCH_BENCH_CMD", "compile-default",
       {"python3", "@adapters/torch_adapter.py"}, torch_all},
      {"torch-compile-max-autotune", "torch.compile, mode=max-autotune", "TORCH_BENCH_CMD",
       "compile-max-autotune", {"python3", "@adapters/torch_adapter.py"}, torch_all},
      {"torch-compile-reduce-overhead", "torch.compile, mode=reduce-overhead (CUDA graphs)", "TORCH_BENCH_CMD",
       "compile-reduce-overhead", {"python3", "@adapters/torch_adapter.py"}, torch_all},
      {"torch-sdpa-flash", "torch SDPA pinned to FlashAttention", "TORCH_BENCH_CMD", "sdpa-flash",
       {"python3", "@adapters/torch_adapter.py"}, {"attention"}},
      {"torch-sdpa-efficient", "torch SDPA pinned to memory-efficient attention", "TORCH_BENCH_CMD",
       "sdpa-efficient", {"python3", "@adapters/torch_adapter.py"}, {"attention"}},
      {"torch-sdpa-cudnn", "torch SDPA pinned to cuDNN attention", "TORCH_BENCH_CMD", "sdpa-cudnn",
       {"python3", "@adapters/torch_adapter.py"}, {"attention"}},
      {"torch-sdpa-math", "torch SDPA pinned to the math reference", "TORCH_BENCH_CMD", "sdpa-math",
       {"python3", "@adapters/torch_adapter.py"}, {"attention"}},
      {"jax", "JAX/XLA jit (adapters/jax_adapter.py)", "XLA_BENCH_CMD", "jit", {"python3", "@adapters/jax_adapter.py"}, all},
      {"triton", "Triton matmul written for assay (adapters/triton_adapter.py)", "TRITON_BENCH_CMD", "matmul",
       {"python3", "@adapters/triton_adapter.py"}, {"gemm", "mlp"}},
      {"tvm", "TVM, through TVM_BENCH_CMD", "TVM_BENCH_CMD", "default", {}, all},
      {"tensorrt", "TensorRT, through TENSORRT_BENCH_CMD", "TENSORRT_BENCH_CMD", "default", {}, all},
      {"glow", "Glow, through GLOW_BENCH_CMD", "GLOW_BENCH_CMD", "default", {}, all},
  };
  return specs;
}

}  // namespace assay
