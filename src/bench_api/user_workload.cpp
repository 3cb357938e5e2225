#include "bench_api/user_workload.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include "backends/backend.hpp"
#include "bench_api/conversions.hpp"
#include "core/error.hpp"
#include "core/ids.hpp"
#include "workloads/gemm.hpp"

namespace assay::bench_api {

namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "[";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? "," : "") + std::to_string(s[i]);
  return t + "]";
}

// A user's callback (shape, flops, bytes, generate, reference), with what it throws turned into
// assay's errors: an exception that is not a std::exception would otherwise end the worker
// (std::terminate, "crashed") instead of failing its case with a reason.
template <class F>
decltype(auto) user_callback(const std::string& what, F&& f) {
  try {
    return f();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(what + " threw: " + e.what());
  } catch (...) {
    throw InputError(what + " threw an exception that is not a std::exception");
  }
}

class UserProblem final : public Problem {
 public:
  UserProblem(const bench::Workload& def, Params params, DType dtype)
      : def_(def), params_(std::move(params)), dtype_(dtype) {
    const std::string at = def_.name + " at " + params_string(params_) + ": ";
    const auto shape_of = [&](const bench::TensorSpec& t) {
      const std::vector<std::int64_t> s = user_callback(at + "the shape of " + t.name, [&] { return t.shape(params_); });
      for (auto d : s)
        if (d < 0) throw InputError(at + t.name + " has the negative shape " + shape_text(s));
      return s;
    };
    for (const auto& t : def_.inputs) input_shapes_.push_back(shape_of(t));
    output_shape_ = shape_of(def_.output);
    // Sizes that wrap a 64-bit count would allocate nothing and be written past (the case would
    // read as the kernel's crash); an output of no elements leaves nothing to check.
    std::uint64_t total = 0;
    const auto add = [&](const std::string& name, const std::vector<std::int64_t>& s, bool output) {
      const std::uint64_t n = numel(s);
      if (n == 0 && output) throw InputError(at + "the output " + name + " has no elements " + shape_text(s));
      if (n > kMaxBytes / dtype_size(dtype_) || total > kMaxBytes / dtype_size(dtype_) - n)
        throw InputError(at + name + " of shape " + shape_text(s) + " takes the tensors past 2^62 bytes");
      total += n;
    };
    for (std::size_t i = 0; i < input_shapes_.size(); ++i) add(def_.inputs[i].name, input_shapes_[i], false);
    add(def_.output.name, output_shape_, true);
  }
  std::string workload() const override { return def_.name; }
  const Params& params() const override { return params_; }
  DType dtype() const override { return dtype_; }
  std::vector<std::string> input_names() const override {
    std::vector<std::string> n;
    for (const auto& t : def_.inputs) n.push_back(t.name);
    return n;
  }
  std::string output_name() const override { return def_.output.name; }
  // A count that is not a finite number >= 0 would be written as null into the results and
  // refused by every reader later; refused here, naming the callback.
  double flops() const override {
    return counted(def_.name + ": flops", user_callback(def_.name + ": flops", [&] { return def_.flops(params_); }));
  }
  double min_bytes() const override {
    if (def_.bytes)
      return counted(def_.name + ": bytes",
                     user_callback(def_.name + ": bytes", [&] { return def_.bytes(params_, to_public(dtype_)); }));
    return static_cast<double>(device_bytes());
  }
  std::string oracle_backend() const override { return def_.reference_backend; }
  std::uint64_t device_bytes() const override {
    std::uint64_t n = numel(output_shape_);
    for (const auto& s : input_shapes_) n += numel(s);
    return n * dtype_size(dtype_);
  }
  std::vector<HostTensor> make_inputs(std::uint64_t seed) const override {
    std::vector<HostTensor> in;
    for (std::size_t i = 0; i < input_shapes_.size(); ++i) {
      HostTensor t = HostTensor::zeros(dtype_, input_shapes_[i]);
      if (def_.generate) {
        std::vector<double> v(t.numel());
        user_callback(def_.name + ": generate", [&] { def_.generate(params_, i, seed, v); });
        if (v.size() != t.numel())
          throw InternalError(def_.name + ": generate gave " + std::to_string(v.size()) + " values for " +
                              def_.inputs[i].name + ", which has " + std::to_string(t.numel()));
        for (std::size_t j = 0; j < v.size(); ++j) store_from_float(dtype_, t.data.data(), j, static_cast<float>(v[j]));
      } else {
        fill_uniform(t, seed * (input_shapes_.size() + 1) + i + 1);
      }
      in.push_back(std::move(t));
    }
    return in;
  }
  HostTensor output_like() const override { return HostTensor::zeros(dtype_, output_shape_); }
  // Every element: a user's oracle has no sampled-rows form.
  Reference reference(const std::vector<HostTensor>& inputs, std::int64_t) const override {
    Reference r;
    const std::size_t n = static_cast<std::size_t>(numel(output_shape_));
    if (def_.reference) {
      std::vector<std::vector<double>> values;
      for (const auto& t : inputs) values.push_back(to_doubles(t));
      // NaN first, so that an element the oracle leaves unwritten is named, not taken as 0.
      r.value.assign(n, std::numeric_limits<double>::quiet_NaN());
      user_callback(def_.name + ": the reference", [&] { def_.reference(params_, values, r.value); });
      if (r.value.size() != n)
        throw InternalError(def_.name + ": the reference gave " + std::to_string(r.value.size()) +
                            " values for an output of " + std::to_string(n));
      for (std::size_t i = 0; i < n; ++i)
        if (std::isnan(r.value[i]))
          throw InputError(def_.name + ": the reference left element " + std::to_string(i) +
                           " of the output unwritten (or wrote NaN)");
      r.oracle = "fp64-cpu";
    } else {
      const Backend* b = find_backend(def_.reference_backend);
      if (!b) throw InternalError(def_.name + ": reference backend '" + def_.reference_backend + "' is unknown");
      if (const std::string why = b->unavailable_reason(); !why.empty())
        throw SkipError("the oracle of " + def_.name + ", backend '" + def_.reference_backend + "', is unavailable: " + why);
      auto inst = b->instantiate(*this, inputs);
      inst->poison_output();
      inst->call(nullptr);
      r.value = to_doubles(inst->read_output());
      r.oracle = "backend:" + def_.reference_backend;
    }
    r.index.resize(n);
    for (std::size_t i = 0; i < n; ++i) r.index[i] = i;
    return r;
  }

 private:
  static constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 62;
  // The element count, or kMaxBytes + 1 where the product passes 2^62 (the constructor refuses
  // such shapes, so elsewhere it is the exact count).
  static std::uint64_t numel(const std::vector<std::int64_t>& s) {
    std::uint64_t n = 1;
    for (auto d : s) {
      const auto u = static_cast<std::uint64_t>(d);
      if (u != 0 && n > kMaxBytes / u) return kMaxBytes + 1;
      n *= u;
    }
    return n;
  }
  static double counted(const std::string& what, double v) {
    if (!std::isfinite(v) || v < 0) throw InputError(what + " gave " + std::to_string(v) + ": not a finite count >= 0");
    return v;
  }
  const bench::Workload& def_;
  Params params_;
  DType dtype_;
  std::vector<std::vector<std::int64_t>> input_shapes_;
  std::vector<std::int64_t> output_shape_;
};

}  // namespace

UserWorkload::UserWorkload(bench::Workload def) : def_(std::move(def)) {
  const std::string at = "workload '" + def_.name + "': ";
  if (def_.name.empty()) throw InputError("a workload without a name");
  for (char c : def_.name)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      throw InputError(at + "a workload name uses only lowercase letters, digits and '_'");
  if (def_.params.empty()) throw InputError(at + "no parameter");
  if (def_.dtypes.empty()) throw InputError(at + "no dtype");
  if (def_.inputs.empty()) throw InputError(at + "no input");
  for (const auto& t : def_.inputs)
    if (t.name.empty() || !t.shape) throw InputError(at + "an input without a name or a shape function");
  if (def_.output.name.empty() || !def_.output.shape) throw InputError(at + "the output has no name or shape function");
  if (!def_.flops) throw InputError(at + "no flops function");
  if (!def_.reference == def_.reference_backend.empty())
    throw InputError(at + "give exactly one oracle: a reference function or a reference_backend");
  for (const auto& [p, range] : def_.ranges) {
    bool known = false;
    for (const auto& q : def_.params) known = known || q == p;
    if (!known) throw InputError(at + "ranges: '" + p + "' is not a parameter");
    if (range.first > range.second) throw InputError(at + "ranges: '" + p + "' has an empty range");
  }
}

std::vector<DType> UserWorkload::dtypes() const {
  std::vector<DType> v;
  for (auto t : def_.dtypes) v.push_back(to_dtype(t));
  return v;
}

std::pair<std::int64_t, std::int64_t> UserWorkload::param_range(const std::string& name) const {
  if (const auto it = def_.ranges.find(name); it != def_.ranges.end()) return it->second;
  return Workload::param_range(name);
}

std::unique_ptr<Problem> UserWorkload::make(const Params& params, DType dtype) const {
  for (const auto& p : def_.params) {
    const auto it = params.find(p);
    if (it == params.end()) throw InputError(p + ": missing (" + def_.name + " needs it)");
    const auto [lo, hi] = param_range(p);
    if (it->second < lo || it->second > hi)
      throw InputError(p + ": " + std::to_string(it->second) + " is outside [" + std::to_string(lo) + ", " +
                       std::to_string(hi) + "]");
  }
  return std::make_unique<UserProblem>(def_, params, dtype);
}

}  // namespace assay::bench_api
