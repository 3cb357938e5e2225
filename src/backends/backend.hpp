#pragma once
// A backend is one implementation of a workload (assay's kernels, cuBLAS, the CPU
// reference). An Instance is a backend set up for one problem on one device: it owns the
// inputs and the output there and runs one call of the implementation.
#include <memory>
#include <string>
#include <vector>

#include "workloads/workload.hpp"

namespace assay {

// cpu and cuda backends run in this process; external ones are adapter programs
// (docs/adapters.md) that run, time and write their output themselves.
enum class Target { cpu, cuda, external };

class Instance {
 public:
  virtual ~Instance() = default;
  // The configuration the backend chose for this problem (kernel, algorithm).
  virtual std::string variant() const = 0;
  // One call. CUDA backends enqueue on `stream` (a cudaStream_t) and return at once; CPU
  // backends run synchronously and ignore it.
  virtual void call(void* stream) = 0;
  // Fills the output with NaN (all bits set: NaN in f32, f16 and bf16).
  virtual void poison_output() = 0;
  // Copies the output to the host, after waiting for the work in flight.
  virtual HostTensor read_output() = 0;
  // Keeps `sets` copies of the inputs and rotates through them on each call, so that
  // back-to-back calls do not find their inputs in L2. Returns the number in use.
  virtual unsigned rotate_inputs(unsigned sets) { (void)sets; return 1; }
  // Puts other values of the inputs (same shapes and dtypes) where the current ones are, in
  // every rotated set, for the recheck; false when this instance cannot (then it keeps its own).
  virtual bool replace_inputs(const std::vector<HostTensor>& inputs) { (void)inputs; return false; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual Target target() const = 0;
  virtual bool supports(const std::string& workload, DType dtype) const = 0;
  // Empty when usable here; otherwise why not (e.g. "libcublas.so.13 not found").
  virtual std::string unavailable_reason() const { return {}; }
  virtual std::string library_version() const { return {}; }
  // Throws InternalError (or an Error with its own code) when the instance cannot be made,
  // e.g. when device memory runs out.
  virtual std::unique_ptr<Instance> instantiate(const Problem& problem,
                                                const std::vector<HostTensor>& inputs) const = 0;
};

// Also makes `py:MODULE:FUNCTION` backends (a user's Python callable) on demand.
const Backend* find_backend(const std::string& name);
bool is_python_callable_name(const std::string& name);  // starts with "py:"
// Empty when `name` is a well-formed py:MODULE:FUNCTION; otherwise what is wrong with it.
std::string python_callable_name_error(const std::string& name);
// The backends built into this binary, then those a program added (add_backends).
std::vector<const Backend*> all_backends();
std::vector<const Backend*> built_backends();
// Adds backends for the rest of the process, before anything is planned: the test binary's
// planted-fault backends (tests/backends) are never part of the release binary. An added
// backend with a built backend's name takes its place (the test binary's planted slowdowns).
void add_backends(const std::vector<const Backend*>& backends);

}  // namespace assay
