#include "backends/cudnn_api.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "backends/subprocess.hpp"
#include "core/dynamic_library.hpp"
#include "core/error.hpp"

namespace assay::cudnn {

namespace {

// libcudnn.so.9 is a shim that opens these by soname when it first needs them. Where it is
// loaded from a folder the loader does not search, they are opened first (RTLD_GLOBAL, those
// the others need first), so that the shim finds them already loaded. Whatever fails to load
// here shows later as cuDNN's own error, which names it.
constexpr const char* kSubLibraries[] = {"libcudnn_graph.so.9",
                                         "libcudnn_ops.so.9",
                                         "libcudnn_heuristic.so.9",
                                         "libcudnn_engines_precompiled.so.9",
                                         "libcudnn_engines_runtime_compiled.so.9",
                                         "libcudnn_cnn.so.9",
                                         "libcudnn_adv.so.9"};

bool readable(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string dl_error() {
  const char* e = dlerror();
  return e ? one_line(e) : "unknown dlopen error";
}

// Opens <dir>/<soname> after its sub-libraries; null with `why` when it cannot.
void* open_in(const std::string& dir, const std::string& soname, std::string& why, std::string& path) {
  path = dir + "/" + soname;
  if (!readable(path)) {
    why = path + " does not exist";
    return nullptr;
  }
  for (const char* sub : kSubLibraries)
    if (const std::string p = dir + "/" + sub; readable(p)) dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!lib) why = dl_error();
  return lib;
}

// The folder `python` prints (nvidia.cudnn's), or empty with `why`.
std::string python_package_dir(const Search& s, std::string& why) {
  SubprocessLimits limits;
  limits.timeout_s = s.python_timeout_s;
  limits.max_stdout_bytes = 4096;
  const auto r = run_subprocess(s.python, "", limits);
  if (!r.started) {
    why = r.error;
  } else if (r.timed_out) {
    why = "no answer within " + std::to_string(static_cast<int>(s.python_timeout_s)) + " s";
  } else if (r.exit_code != 0) {
    // The last line of a traceback says why (ModuleNotFoundError: No module named 'nvidia').
    std::string tail = r.err_tail;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    const auto last_line = tail.find_last_of('\n');
    why = one_line(last_line == std::string::npos ? tail : tail.substr(last_line + 1));
    if (why.empty()) why = "exit code " + std::to_string(r.exit_code);
  } else {
    std::string dir = r.out.substr(0, r.out.find('\n'));
    if (dir.empty()) why = "printed nothing";
    return dir;
  }
  return {};
}

void resolve_all(void* lib, Api& a) {
  const std::string& f = a.loaded_from;
  resolve_symbol(lib, a.get_version, "cudnnGetVersion", f, a.error);
  resolve_symbol(lib, a.get_cudart_version, "cudnnGetCudartVersion", f, a.error);
  resolve_symbol(lib, a.error_string, "cudnnGetErrorString", f, a.error);
  resolve_symbol(lib, a.last_error_string, "cudnnGetLastErrorString", f, a.error);
  resolve_symbol(lib, a.create, "cudnnCreate", f, a.error);
  resolve_symbol(lib, a.destroy, "cudnnDestroy", f, a.error);
  resolve_symbol(lib, a.set_stream, "cudnnSetStream", f, a.error);
  resolve_symbol(lib, a.create_descriptor, "cudnnBackendCreateDescriptor", f, a.error);
  resolve_symbol(lib, a.destroy_descriptor, "cudnnBackendDestroyDescriptor", f, a.error);
  resolve_symbol(lib, a.set_attribute, "cudnnBackendSetAttribute", f, a.error);
  resolve_symbol(lib, a.get_attribute, "cudnnBackendGetAttribute", f, a.error);
  resolve_symbol(lib, a.finalize, "cudnnBackendFinalize", f, a.error);
  resolve_symbol(lib, a.execute, "cudnnBackendExecute", f, a.error);
  if (!a.error.empty()) return;
  a.version = a.get_version();
  a.cudart_version = a.get_cudart_version();
  // The graph API's attributes and statuses are cuDNN 9's; 8.x numbers them differently.
  if (a.version / 10000 != 9) a.error = f + " is cuDNN " + version_string(a.version) + "; assay needs cuDNN 9";
}

// cuDNN's engines open cuBLASLt (of cuDNN's own CUDA major) when the first heuristics are made,
// and abort the process where it is missing ("Cannot load symbol cublasLtGetVersion"). Opened
// here first, where cuDNN would look (the folders its RUNPATH names in the pip layout, then the
// loader path), a missing cuBLASLt is a reason the backend gives, not a crashed case.
std::string open_cublaslt(const Api& a) {
  const std::string so = "libcublasLt.so." + std::to_string(a.cudart_version / 1000);
  const std::string dir = a.loaded_from.substr(0, a.loaded_from.find_last_of('/') + 1);
  if (!dir.empty())
    for (const char* sub : {"", "../../cublas/lib/", "../../cu13/lib/"})
      if (dlopen((dir + sub + so).c_str(), RTLD_NOW | RTLD_GLOBAL)) return {};
  if (dlopen(so.c_str(), RTLD_NOW | RTLD_GLOBAL)) return {};
  return a.loaded_from + " (cuDNN " + version_string(a.version) + " for CUDA " +
         std::to_string(a.cudart_version / 1000) + ") needs " + so +
         ", found neither beside it, in ../../cublas/lib, ../../cu13/lib nor on the loader path (" + dl_error() + ")";
}

}  // namespace

Search default_search() {
  Search s;
  if (const char* env = std::getenv("ASSAY_CUDNN_LIBRARY_DIR"); env && *env) s.dir = env;
  // __path__ rather than __file__: nvidia.cudnn may be a namespace package (no __init__.py).
  s.python = {"python3", "-c", "import nvidia.cudnn as m; print(list(m.__path__)[0])"};
  return s;
}

Api load(const Search& s) {
  Api a;
  std::vector<std::string> tried;
  // A folder the user named comes first: a machine may hold several cuDNN 9 builds (the GPU
  // machine has 9.14 on the loader path and 9.19 inside PyTorch's environment).
  void* lib = nullptr;
  std::string path = s.soname;
  for (const std::string& d : s.dir.empty() ? std::vector<std::string>{} : std::vector<std::string>{s.dir, s.dir + "/lib"}) {
    std::string why;
    if ((lib = open_in(d, s.soname, why, path))) break;
    tried.push_back("ASSAY_CUDNN_LIBRARY_DIR: " + why);
  }
  if (!lib && (lib = dlopen(s.soname.c_str(), RTLD_NOW | RTLD_LOCAL))) path = s.soname;
  if (!lib) {
    tried.push_back("loader path: " + dl_error());
    if (s.dir.empty()) tried.push_back("ASSAY_CUDNN_LIBRARY_DIR not set");
  }
  if (!lib && !s.python.empty()) {
    std::string why;
    const std::string pkg = python_package_dir(s, why);
    if (!pkg.empty()) lib = open_in(pkg + "/lib", s.soname, why, path);
    if (!lib) tried.push_back(s.python[0] + " (nvidia.cudnn): " + why);
  }
  if (!lib) {
    std::string msg = "cuDNN 9 not found (" + s.soname + "): ";
    for (std::size_t i = 0; i < tried.size(); ++i) msg += (i ? "; " : "") + tried[i];
    a.error = msg;
    return a;
  }
  a.loaded_from = path;
  resolve_all(lib, a);
  // The file the loader chose, for whoever asks where cuDNN came from.
  if (Dl_info info{}; a.get_version && dladdr(reinterpret_cast<void*>(a.get_version), &info) && info.dli_fname)
    a.loaded_from = info.dli_fname;
  if (a.error.empty()) a.error = open_cublaslt(a);
  return a;
}

const Api& api() {
  static const Api a = load(default_search());
  return a;
}

std::string version_string(std::size_t v) {
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}

std::string describe(cudnnStatus_t s) {
  const auto& a = api();
  std::string msg = a.error_string ? a.error_string(s) : "cuDNN status";
  msg += " (" + std::to_string(static_cast<int>(s)) + ")";
  if (a.last_error_string) {
    char buf[1024] = {};
    a.last_error_string(buf, sizeof buf);
    if (buf[0]) msg += ": " + one_line(buf);
  }
  return msg;
}

void check(cudnnStatus_t s, const char* what) {
  if (s != CUDNN_STATUS_SUCCESS) throw InternalError(std::string("cuDNN ") + what + " failed: " + describe(s));
}

Descriptor::Descriptor(cudnnBackendDescriptorType_t type, std::string name) : name_(std::move(name)) {
  if (const auto s = api().create_descriptor(type, &d_); s != CUDNN_STATUS_SUCCESS)
    throw InternalError("cuDNN cudnnBackendCreateDescriptor (" + name_ + ") failed: " + describe(s));
}

Descriptor::~Descriptor() {
  if (d_) api().destroy_descriptor(d_);
}

Descriptor::Descriptor(Descriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)), name_(std::move(o.name_)) {}

Descriptor& Descriptor::operator=(Descriptor&& o) noexcept {
  if (this != &o) {
    if (d_) api().destroy_descriptor(d_);
    d_ = std::exchange(o.d_, nullptr);
    name_ = std::move(o.name_);
  }
  return *this;
}

void Descriptor::set(cudnnBackendAttributeName_t name, const char* attr, cudnnBackendAttributeType_t type,
                     std::int64_t count, const void* values) {
  if (const auto s = api().set_attribute(d_, name, type, count, values); s != CUDNN_STATUS_SUCCESS)
    throw InternalError("cuDNN cudnnBackendSetAttribute(" + std::string(attr) + ") on " + name_ + " failed: " +
                        describe(s));
}

void Descriptor::set_descriptor(cudnnBackendAttributeName_t name, const char* attr, const Descriptor& value) {
  const cudnnBackendDescriptor_t d = value.get();
  set(name, attr, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &d);
}

cudnnStatus_t Descriptor::try_finalize() { return api().finalize(d_); }

void Descriptor::finalize() {
  if (const auto s = try_finalize(); s != CUDNN_STATUS_SUCCESS)
    throw InternalError("cuDNN cudnnBackendFinalize (" + name_ + ") failed: " + describe(s));
}

}  // namespace assay::cudnn
