#include "workloads/mlp.hpp"

#include <cmath>

#include "core/error.hpp"
#include "core/parallel_for.hpp"
#include "workloads/gemm.hpp"
#include "workloads/sampled_rows.hpp"

namespace assay {

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

MlpProblem::MlpProblem(std::int64_t batch, std::int64_t hidden, DType dtype)
    : batch_(batch), hidden_(hidden), dtype_(dtype), params_{{"batch", batch}, {"hidden", hidden}} {}

double MlpProblem::flops() const { return 16.0 * batch_ * hidden_ * hidden_; }

double MlpProblem::min_bytes() const {
  const double h = static_cast<double>(hidden_), b = static_cast<double>(batch_);
  return static_cast<double>(dtype_size(dtype_)) * (2 * b * h + 8 * h * h + 5 * h);
}

std::uint64_t MlpProblem::device_bytes() const {
  // Inputs, output, and the [batch, 4H] hidden activations.
  return static_cast<std::uint64_t>(min_bytes() + 4.0 * batch_ * hidden_ * dtype_size(dtype_));
}

std::vector<HostTensor> MlpProblem::make_inputs(std::uint64_t seed) const {
  const std::int64_t h = hidden_, f = 4 * hidden_;
  std::vector<HostTensor> t = {HostTensor::zeros(dtype_, {batch_, h}), HostTensor::zeros(dtype_, {h, f}),
                               HostTensor::zeros(dtype_, {f}), HostTensor::zeros(dtype_, {f, h}),
                               HostTensor::zeros(dtype_, {h})};
  const double scale[5] = {1.0, 1.0 / std::sqrt(double(h)), 1.0 / std::sqrt(double(h)), 1.0 / std::sqrt(double(f)),
                           1.0 / std::sqrt(double(f))};
  for (std::size_t i = 0; i < t.size(); ++i) fill_uniform(t[i], seed * 8 + i + 1, scale[i]);
  return t;
}

HostTensor MlpProblem::output_like() const { return HostTensor::zeros(dtype_, {batch_, hidden_}); }

Reference MlpProblem::reference(const std::vector<HostTensor>& in, std::int64_t sampled_rows) const {
  const std::int64_t h = hidden_, f = 4 * hidden_;
  const auto rows = pick_rows(batch_, sampled_rows);
  const auto x = to_floats(in.at(0)), w1 = to_floats(in.at(1)), b1 = to_floats(in.at(2)), w2 = to_floats(in.at(3)),
             b2 = to_floats(in.at(4));
  Reference ref;
  ref.oracle = rows.size() == static_cast<std::size_t>(batch_) ? "fp64-cpu" : "fp64-cpu-sampled-rows";
  ref.index.resize(rows.size() * h);
  ref.value.resize(rows.size() * h);
  parallel_for(rows.size(), [&](std::size_t rb, std::size_t re) {
    std::vector<double> hid(f), out(h);
    for (std::size_t r = rb; r < re; ++r) {
      const std::int64_t i = rows[r];
      for (std::int64_t j = 0; j < f; ++j) hid[j] = b1[j];
      for (std::int64_t p = 0; p < h; ++p) {
        const double xv = x[i * h + p];
        for (std::int64_t j = 0; j < f; ++j) hid[j] += xv * w1[p * f + j];
      }
      for (std::int64_t j = 0; j < h; ++j) out[j] = b2[j];
      for (std::int64_t p = 0; p < f; ++p) {
        const double g = gelu_erf(hid[p]);
        for (std::int64_t j = 0; j < h; ++j) out[j] += g * w2[p * h + j];
      }
      for (std::int64_t j = 0; j < h; ++j) {
        ref.index[r * h + j] = static_cast<std::size_t>(i * h + j);
        ref.value[r * h + j] = out[j];
      }
    }
  });
  return ref;
}

std::unique_ptr<Problem> MlpWorkload::make(const Params& params, DType dtype) const {
  const std::int64_t batch = require_param(params, "mlp", "batch", 1, 2147483647);
  const std::int64_t hidden = require_param(params, "mlp", "hidden", 1, 2147483647 / 4);
  reject_unknown_params(params, "mlp", {"batch", "hidden"});
  checked_bytes("mlp", {{batch, hidden}, {hidden, 4 * hidden}, {4 * hidden, hidden}, {batch, 4 * hidden}}, dtype);
  return std::make_unique<MlpProblem>(batch, hidden, dtype);
}

}  // namespace assay
