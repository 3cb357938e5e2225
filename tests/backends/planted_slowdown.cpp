#include "planted_slowdown.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "workloads/gemm.hpp"

namespace assay {

namespace {

using Clock = std::chrono::steady_clock;

double median_host_ns(Instance& in, bool spin, double spin_ns) {
  std::vector<double> ns;
  for (int i = 0; i < 24; ++i) {
    const auto t0 = Clock::now();
    in.call(nullptr);
    if (spin)
      while (std::chrono::duration<double, std::nano>(Clock::now() - t0).count() < spin_ns) {
      }
    if (i >= 3) ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  std::nth_element(ns.begin(), ns.begin() + ns.size() / 2, ns.end());
  return ns[ns.size() / 2];
}

std::string percent(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100.0 * x);
  return buf;
}

class SlowedInstance final : public Instance {
 public:
  SlowedInstance(std::unique_ptr<Instance> inner, Target target, double fraction)
      : inner_(std::move(inner)), target_(target) {
    if (target_ == Target::cpu) calibrate_host(fraction);
#ifdef ASSAY_HAVE_CUDA
    else calibrate_gpu(fraction);
#endif
  }
  std::string variant() const override { return inner_->variant() + " " + note_; }
  void call(void* stream) override {
    if (target_ == Target::cpu) {
      const auto t0 = Clock::now();
      inner_->call(stream);
      if (host_spin_ns_ > 0)
        while (std::chrono::duration<double, std::nano>(Clock::now() - t0).count() < host_total_ns_) {
        }
      return;
    }
#ifdef ASSAY_HAVE_CUDA
    inner_->call(stream);
    if (cycles_ > 0) launch_spin(cycles_, stream);
#endif
  }
  void poison_output() override { inner_->poison_output(); }
  HostTensor read_output() override { return inner_->read_output(); }
  unsigned rotate_inputs(unsigned sets) override { return inner_->rotate_inputs(sets); }

 private:
  // The host call is padded to (1 + fraction) times its own median.
  void calibrate_host(double fraction) {
    const double t = median_host_ns(*inner_, false, 0);
    if (fraction == 0) {
      note_ = "+planted nothing (the control: calibrated, fraction 0)";
      return;
    }
    host_spin_ns_ = fraction * t;
    host_total_ns_ = (1 + fraction) * t;
    const double planted = median_host_ns(*inner_, true, host_total_ns_) / t - 1;
    note_ = "+planted " + percent(planted) + " (host spin to " + std::to_string(static_cast<long long>(host_total_ns_)) +
            " ns)";
  }
#ifdef ASSAY_HAVE_CUDA
  // One more launch costs a gap of its own; the spin makes up the rest of fraction x the call.
  void calibrate_gpu(double fraction) {
    struct Ctx {
      Instance* in;
      long long cycles;
    } ctx{inner_.get(), 0};
    const auto plain = [](void* c, void* s) { static_cast<Ctx*>(c)->in->call(s); };
    const auto spun = [](void* c, void* s) {
      static_cast<Ctx*>(c)->in->call(s);
      launch_spin(static_cast<Ctx*>(c)->cycles, s);
    };
    const auto spin_only = [](void* c, void* s) { launch_spin(static_cast<Ctx*>(c)->cycles, s); };
    const double t = median_gpu_ns(plain, &ctx);
    const double gap = median_gpu_ns(spun, &ctx) - t;  // a spin of 0 cycles: the launch alone
    if (fraction == 0) {
      note_ = "+planted nothing (the control: calibrated, fraction 0)";
      return;
    }
    // Plant only with a margin: where one more launch costs about the fraction, the measured gap
    // would decide differently in different worker processes (rounds) of the same case.
    if (gap >= 0.5 * fraction * t) {
      note_ = "+planted nothing (one more launch costs " + percent(gap / t) + ", over half of " + percent(fraction) + ")";
      return;
    }
    ctx.cycles = 1000000;
    const double ns_per_cycle = median_gpu_ns(spin_only, &ctx) / 1e6;
    cycles_ = static_cast<long long>((fraction * t - gap) / ns_per_cycle);
    ctx.cycles = cycles_;
    note_ = "+planted " + percent(median_gpu_ns(spun, &ctx) / t - 1) + " (spin " + std::to_string(cycles_) + " cycles)";
  }
  long long cycles_ = 0;
#endif
  std::unique_ptr<Instance> inner_;
  Target target_;
  double host_spin_ns_ = 0, host_total_ns_ = 0;
  std::string note_;
};

// ASSAY_TESTBED_PLANT=extra-k, gemm only: the planted work is inside the timed kernel. The
// candidate multiplies A and B padded with zeros along k to k' = k + 64·round(F·k/64) (whole K
// tiles of 64, what the tiled kernels compute anyway): the same C from F more multiply-adds in
// the same launch, so nothing is added around the call and no calibration decides whether to
// plant. The padded problem is owned here, before the instance that may refer to it.
struct PaddedGemm {
  std::unique_ptr<GemmProblem> problem;
  std::vector<HostTensor> inputs;
};

// A [m, k] and B ([k, n], or [n, k] for f8e4m3) with k' - k zero columns / rows appended.
PaddedGemm pad_k(const GemmProblem& g, const std::vector<HostTensor>& in, std::int64_t extra) {
  const std::int64_t m = g.m(), n = g.n(), k = g.k(), kp = k + extra;
  PaddedGemm out{std::make_unique<GemmProblem>(m, n, kp, g.dtype()), in};
  const std::size_t e = in[0].bytes() / static_cast<std::size_t>(m * k);  // element bytes
  const auto pad_rows = [&](const HostTensor& t, std::int64_t rows, std::int64_t cols) {  // each row to kp columns
    HostTensor r = HostTensor::zeros(t.dtype, {rows, kp});
    for (std::int64_t i = 0; i < rows; ++i)
      std::memcpy(r.data.data() + static_cast<std::size_t>(i * kp) * e, t.data.data() + static_cast<std::size_t>(i * cols) * e,
                  static_cast<std::size_t>(cols) * e);
    return r;
  };
  out.inputs[0] = pad_rows(in[0], m, k);
  if (g.dtype() == DType::f8e4m3) {
    out.inputs[1] = pad_rows(in[1], n, k);
  } else {  // [k, n] -> [kp, n]: the rows appended are zeros
    HostTensor b = HostTensor::zeros(in[1].dtype, {kp, n});
    std::memcpy(b.data.data(), in[1].data.data(), in[1].bytes());
    out.inputs[1] = std::move(b);
  }
  return out;
}

class PaddedInstance final : public Instance {
 public:
  // `padded` without a problem: nothing is planted, the call's own problem `p` and `in` are run.
  PaddedInstance(PaddedGemm padded, const Backend& inner, const Problem& p, const std::vector<HostTensor>& in, std::string note)
      : padded_(std::move(padded)),
        inner_(padded_.problem ? inner.instantiate(*padded_.problem, padded_.inputs) : inner.instantiate(p, in)),
        note_(std::move(note)) {}
  std::string variant() const override { return inner_->variant() + " " + note_; }
  void call(void* stream) override { inner_->call(stream); }
  void poison_output() override { inner_->poison_output(); }
  HostTensor read_output() override { return inner_->read_output(); }
  unsigned rotate_inputs(unsigned sets) override { return inner_->rotate_inputs(sets); }

 private:
  PaddedGemm padded_;  // first: the instance below may refer to the problem
  std::unique_ptr<Instance> inner_;
  std::string note_;
};

bool plant_extra_k() {
  const char* env = std::getenv("ASSAY_TESTBED_PLANT");
  const std::string mode = env ? env : "spin";
  if (mode != "spin" && mode != "extra-k") {
    std::fprintf(stderr, "assay-testbed: ASSAY_TESTBED_PLANT='%s': give spin (the default) or extra-k\n", mode.c_str());
    std::exit(3);
  }
  return mode == "extra-k";
}

class SlowedBackend final : public Backend {
 public:
  SlowedBackend(const Backend* inner, double fraction, bool extra_k) : inner_(inner), fraction_(fraction), extra_k_(extra_k) {}
  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description() + " (with a planted slowdown)"; }
  Target target() const override { return inner_->target(); }
  bool supports(const std::string& w, DType d) const override { return inner_->supports(w, d); }
  std::string unavailable_reason() const override { return inner_->unavailable_reason(); }
  std::string library_version() const override { return inner_->library_version(); }
  std::unique_ptr<Instance> instantiate(const Problem& p, const std::vector<HostTensor>& inputs) const override {
    if (extra_k_ && p.workload() == "gemm" && inner_->target() != Target::external) {
      const auto& g = dynamic_cast<const GemmProblem&>(p);
      const std::int64_t extra = 64 * std::llround(fraction_ * static_cast<double>(g.k()) / 64.0);
      if (extra == 0)
        return std::make_unique<PaddedInstance>(PaddedGemm{}, *inner_, p, inputs, fraction_ == 0 ? "+planted nothing (the control: extra-k, fraction 0)"
                                                                         : "+planted nothing (k " + std::to_string(g.k()) +
                                                                               ": the fraction is under half a K tile of 64)");
      const double more = static_cast<double>(extra) / static_cast<double>(g.k());
      return std::make_unique<PaddedInstance>(pad_k(g, inputs, extra), *inner_, p, inputs,
                                              "+planted " + percent(more) + " more multiply-adds (k " + std::to_string(g.k()) +
                                                  " -> " + std::to_string(g.k() + extra) + " in the kernel, zero-padded)");
    }
    auto in = inner_->instantiate(p, inputs);
    if (inner_->target() == Target::external) return in;  // an adapter times itself: nothing to plant
    return std::make_unique<SlowedInstance>(std::move(in), inner_->target(), fraction_);
  }

 private:
  const Backend* inner_;
  double fraction_;
  bool extra_k_;
};

}  // namespace

std::vector<const Backend*> planted_slowdown_backends() {
  const char* env = std::getenv("ASSAY_TESTBED_SLOWDOWN");
  if (!env || !*env) return {};
  char* end = nullptr;
  const double f = std::strtod(env, &end);
  if (*end != '\0' || !(f >= 0 && f < 1)) {
    std::fprintf(stderr, "assay-testbed: ASSAY_TESTBED_SLOWDOWN='%s': give a fraction in [0, 1), e.g. 0.03\n", env);
    std::exit(3);
  }
  const bool extra_k = plant_extra_k();
  static std::deque<SlowedBackend> slowed;
  std::vector<const Backend*> out;
  for (const Backend* b : built_backends())
    if (b->target() != Target::external) out.push_back(&slowed.emplace_back(b, f, extra_k));
  return out;
}

}  // namespace assay
