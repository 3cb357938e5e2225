#pragma once
// cuDNN 9, opened at run time so that the assay binary starts where it is missing; only the
// graph (backend) API entry points assay calls. On the GPU hosts cuDNN often ships only inside
// PyTorch's pip package (nvidia/cudnn/lib), so the search goes past the loader path.
#include <cudnn_graph.h>

#include <cstdint>
#include <string>
#include <vector>

namespace assay::cudnn {

struct Api {
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetCudartVersion) get_cudart_version = nullptr;
  decltype(&cudnnGetErrorString) error_string = nullptr;
  decltype(&cudnnGetLastErrorString) last_error_string = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnDestroy) destroy = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnBackendCreateDescriptor) create_descriptor = nullptr;
  decltype(&cudnnBackendDestroyDescriptor) destroy_descriptor = nullptr;
  decltype(&cudnnBackendSetAttribute) set_attribute = nullptr;
  decltype(&cudnnBackendGetAttribute) get_attribute = nullptr;
  decltype(&cudnnBackendFinalize) finalize = nullptr;
  decltype(&cudnnBackendExecute) execute = nullptr;
  std::size_t version = 0;         // cudnnGetVersion(): major*10000 + minor*100 + patch
  std::size_t cudart_version = 0;  // the CUDA runtime cuDNN was built with: major*1000 + minor*10
  std::string loaded_from;  // the file that was opened
  std::string error;        // empty when usable; otherwise one line naming everything tried
};

// Where to look, in order: `soname` through the dynamic loader, then `dir` (and dir/lib), then
// the folder of the Python package nvidia.cudnn that `python` prints (its lib/). A parameter so
// that the unit test can run a search that finds nothing without touching the process's own.
struct Search {
  std::string soname = "libcudnn.so.9";
  std::string dir;                  // ASSAY_CUDNN_LIBRARY_DIR; empty: not set
  std::vector<std::string> python;  // argv printing nvidia.cudnn's folder; empty: not asked
  double python_timeout_s = 10;
};

Search default_search();
Api load(const Search& search);
// The process's cuDNN: load(default_search()) once.
const Api& api();

// "9.19.0" from cudnnGetVersion()'s number.
std::string version_string(std::size_t version);
// The status's name, its code and cuDNN's last error message on this thread, in one line.
std::string describe(cudnnStatus_t s);
// Throws InternalError naming the call when a status is not success.
void check(cudnnStatus_t s, const char* what);
inline bool not_supported(cudnnStatus_t s) { return CUDNN_STATUS_CATEGORY(s) == CUDNN_STATUS_NOT_SUPPORTED; }

// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  Descriptor() = default;
  Descriptor(cudnnBackendDescriptorType_t type, std::string name);
  ~Descriptor();
  Descriptor(Descriptor&& o) noexcept;
  Descriptor& operator=(Descriptor&& o) noexcept;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;

  cudnnBackendDescriptor_t get() const { return d_; }
  // cudnnBackendSetAttribute, checked; `attr` names the attribute in the error.
  void set(cudnnBackendAttributeName_t name, const char* attr, cudnnBackendAttributeType_t type, std::int64_t count,
           const void* values);
  void set_descriptor(cudnnBackendAttributeName_t name, const char* attr, const Descriptor& value);
  // Unchecked: the caller decides what a failure means (a shape cuDNN does not take is a skip).
  cudnnStatus_t try_finalize();
  void finalize();

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
  std::string name_;
};

}  // namespace assay::cudnn
