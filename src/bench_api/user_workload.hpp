#pragma once
// A workload a program defined through include/assay/bench.hpp: its parameters, tensors,
// FLOPs and bytes, seeded inputs and oracle (a host function, or a trusted backend's output).
#include <assay/bench.hpp>

#include "workloads/workload.hpp"

namespace assay::bench_api {

class UserWorkload final : public Workload {
 public:
  // Throws InputError naming what is wrong with the definition.
  explicit UserWorkload(bench::Workload def);
  std::string name() const override { return def_.name; }
  std::string description() const override { return def_.description; }
  std::vector<std::string> param_names() const override { return def_.params; }
  std::vector<DType> dtypes() const override;
  std::pair<std::int64_t, std::int64_t> param_range(const std::string& name) const override;
  std::unique_ptr<Problem> make(const Params& params, DType dtype) const override;

 private:
  bench::Workload def_;
};

}  // namespace assay::bench_api
