#pragma once
// A workload is a problem family (gemm, ...); a Problem is one workload at given
// parameters and dtype: it knows its FLOPs and bytes, makes seeded random inputs and
// computes fp64 references of its output (the oracle).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"

namespace assay {

using Params = std::map<std::string, std::int64_t>;

struct HostTensor {
  DType dtype = DType::f32;
  std::vector<std::int64_t> shape;
  std::vector<std::byte> data;
  std::size_t numel() const;
  std::size_t bytes() const { return data.size(); }
  static HostTensor zeros(DType dtype, std::vector<std::int64_t> shape);
};

// fp64 reference values of some (or all) output elements.
struct Reference {
  std::string oracle;               // e.g. "fp64-cpu", "fp64-cpu-sampled-rows"
  std::vector<std::size_t> index;   // flat element indices into the output
  std::vector<double> value;
};

class Problem {
 public:
  virtual ~Problem() = default;
  virtual std::string workload() const = 0;
  virtual const Params& params() const = 0;
  virtual DType dtype() const = 0;
  virtual std::vector<std::string> input_names() const = 0;  // in make_inputs order
  virtual std::string output_name() const = 0;
  virtual double flops() const = 0;
  virtual double min_bytes() const = 0;      // each input read once, the output written once
  virtual std::uint64_t device_bytes() const = 0;  // inputs + output of one instance
  virtual std::vector<HostTensor> make_inputs(std::uint64_t seed) const = 0;
  virtual HostTensor output_like() const = 0;
  // All elements when sampled_rows <= 0; otherwise that many rows spread over the output.
  virtual Reference reference(const std::vector<HostTensor>& inputs, std::int64_t sampled_rows) const = 0;
  // The oracle a case is checked against, for inputs made by make_inputs(seed): `reference` on
  // them, unless the dtype quantises values the problem drew first (f8e4m3 attention), whose
  // oracle is on those unquantised values so that the error reported is the whole error.
  virtual Reference oracle(const std::vector<HostTensor>& inputs, std::uint64_t seed,
                           std::int64_t sampled_rows) const {
    (void)seed;
    return reference(inputs, sampled_rows);
  }
  std::string shape_string() const;  // "k=384,m=384,n=384" (names in order)
  // The backend whose output is this problem's oracle, or "" (an fp64 reference): a case of that
  // backend would be checked against itself.
  virtual std::string oracle_backend() const { return {}; }
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<std::string> param_names() const = 0;
  virtual std::vector<DType> dtypes() const = 0;
  // Allowed values of a parameter (sizes: [1, 2^31-1]; flags such as causal: [0, 1]).
  virtual std::pair<std::int64_t, std::int64_t> param_range(const std::string& name) const {
    (void)name;
    return {1, 2147483647};
  }
  // A parameter a suite may leave out (the problem then takes its default and leaves it out of
  // its params, so that the case ids of suites that predate it do not change).
  virtual bool param_optional(const std::string& name) const {
    (void)name;
    return false;
  }
  // A parameter that transforms the same drawn values rather than drawing others (attention's
  // hadamard): the runner leaves it out of the input seed, so the cases it separates compare on
  // the same data.
  virtual bool param_keeps_values(const std::string& name) const {
    (void)name;
    return false;
  }
  // Validates and builds; throws InputError naming the parameter ("m", ...) when invalid.
  virtual std::unique_ptr<Problem> make(const Params& params, DType dtype) const = 0;
};

const Workload* find_workload(const std::string& name);
// The built workloads, then those a program added (add_workloads).
std::vector<const Workload*> all_workloads();
// Adds workloads for the rest of the process, before anything is planned: a program's own
// (include/assay/bench.hpp). Their names must not be taken.
void add_workloads(const std::vector<const Workload*>& workloads);

}  // namespace assay
