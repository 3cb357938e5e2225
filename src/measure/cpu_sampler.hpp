#pragma once
#include <functional>

#include "measure/sampler.hpp"

namespace assay::measure {

// Host steady clock around one synchronous call: what CPU backends are measured with.
class CpuSampler final : public Sampler {
 public:
  explicit CpuSampler(std::function<void()> call) : call_(std::move(call)) {}
  std::string mode() const override { return "cpu"; }
  void warmup_call() override { call_(); }
  Sample sample() override;

 private:
  std::function<void()> call_;
};

}  // namespace assay::measure
