#include "planted_slowdown.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>

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

class SlowedBackend final : public Backend {
 public:
  SlowedBackend(const Backend* inner, double fraction) : inner_(inner), fraction_(fraction) {}
  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description() + " (with a planted slowdown)"; }
  Target target() const override { return inner_->target(); }
  bool supports(const std::string& w, DType d) const override { return inner_->supports(w, d); }
  std::string unavailable_reason() const override { return inner_->unavailable_reason(); }
  std::string library_version() const override { return inner_->library_version(); }
  std::unique_ptr<Instance> instantiate(const Problem& p, const std::vector<HostTensor>& inputs) const override {
    auto in = inner_->instantiate(p, inputs);
    if (inner_->target() == Target::external) return in;  // an adapter times itself: nothing to plant
    return std::make_unique<SlowedInstance>(std::move(in), inner_->target(), fraction_);
  }

 private:
  const Backend* inner_;
  double fraction_;
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
  static std::deque<SlowedBackend> slowed;
  std::vector<const Backend*> out;
  for (const Backend* b : built_backends())
    if (b->target() != Target::external) out.push_back(&slowed.emplace_back(b, f));
  return out;
}

}  // namespace assay
