// NVML telemetry and `assay doctor` on a real GPU: the monitor sees clocks, power and polls
// during a 300 ms load and costs the measured kernel nothing; the doctor names every check.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "../unit/cli_support.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/doctor.hpp"
#include "gpu/telemetry.hpp"
#include "gpu/timing_kernels.hpp"
#include "gpu_test_support.hpp"

using namespace assay;

namespace {

// Median time of `n` launches of a `ns` spin kernel on one block, by CUDA events.
double median_spin_ms(cudaStream_t s, unsigned long long ns, int n) {
  cudaEvent_t a, b;
  ASSAY_CUDA(cudaEventCreate(&a));
  ASSAY_CUDA(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int i = 0; i < n; ++i) {
    ASSAY_CUDA(cudaEventRecord(a, s));
    ASSAY_CUDA(gpu::launch_spin_kernel(ns, 1, s));
    ASSAY_CUDA(cudaEventRecord(b, s));
    ASSAY_CUDA(cudaEventSynchronize(b));
    float t = 0;
    ASSAY_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

TEST(TelemetryGpu, TheMonitorSeesClocksPowerAndPollsDuringA300msLoad) {
  ASSAY_REQUIRE_GPU();
  const DeviceRecord d = gpu::query_device(0);
  ASSERT_TRUE(gpu::nvml::system_library().available()) << gpu::nvml::system_library().source();
  ASSAY_CUDA(cudaSetDevice(0));
  cudaStream_t s;
  ASSAY_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  gpu::TelemetryMonitor monitor(d.uuid);
  ASSAY_CUDA(gpu::launch_spin_kernel(300'000'000ull, 4 * d.sm_count, s));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  monitor.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const TelemetryRecord t = monitor.stop();
  ASSAY_CUDA(cudaStreamSynchronize(s));
  cudaStreamDestroy(s);

  EXPECT_EQ(t.source, "nvml");
  EXPECT_GE(t.polls, 8u);  // 250 ms at 20 ms, with the start and end polls
  EXPECT_GT(t.sm_clock_start_mhz, 0);
  EXPECT_GT(t.sm_clock_end_mhz, 0);
  EXPECT_GT(t.sm_clock_min_mhz, 0);
  EXPECT_LE(t.sm_clock_min_mhz, std::min(t.sm_clock_start_mhz, t.sm_clock_end_mhz));
  EXPECT_GT(t.mem_clock_min_mhz, 0);
  EXPECT_GT(t.temperature_max_c, 0);
  EXPECT_GT(t.power_max_w, 0);
  EXPECT_GT(t.power_limit_w, 0);
  // This process holds a context on the GPU and is never "another process".
  const std::string self = "pid " + std::to_string(getpid()) + " ";
  for (const auto& p : t.other_processes) EXPECT_EQ(p.rfind(self, 0), std::string::npos) << p;
  std::cout << "telemetry: SM " << t.sm_clock_min_mhz << "-" << t.sm_clock_end_mhz << " MHz, mem "
            << t.mem_clock_min_mhz << " MHz, " << t.temperature_max_c << " C, " << t.power_max_w << "/"
            << t.power_limit_w << " W, polls " << t.polls << ", unstable " << t.unstable << "\n";
}

TEST(TelemetryGpu, PollingDoesNotChangeTheMeasuredKernelTime) {
  ASSAY_REQUIRE_GPU();
  const DeviceRecord d = gpu::query_device(0);
  ASSAY_CUDA(cudaSetDevice(0));
  cudaStream_t s;
  ASSAY_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  constexpr unsigned long long kSpin = 200'000;  // 200 us
  median_spin_ms(s, kSpin, 20);                  // warm up
  const double quiet = median_spin_ms(s, kSpin, 200);
  gpu::TelemetryMonitor monitor(d.uuid, std::chrono::milliseconds(1));  // 20x the default rate
  monitor.start();
  const double polled = median_spin_ms(s, kSpin, 200);
  const TelemetryRecord t = monitor.stop();
  cudaStreamDestroy(s);
  EXPECT_GT(t.polls, 5u);
  EXPECT_NEAR(polled, quiet, 0.01 * quiet) << "quiet " << quiet << " ms, polled " << polled << " ms";
}

TEST(DoctorGpu, RunsTheLoadAndNamesEveryCheck) {
  ASSAY_REQUIRE_GPU();
  const gpu::DoctorReport r = gpu::run_doctor(0);
  std::vector<std::string> names;
  for (const auto& c : r.checks) {
    names.push_back(c.name);
    EXPECT_FALSE(c.detail.empty()) << c.name;
    std::cout << "  " << c.name << ": " << gpu::verdict_name(c.verdict) << "  " << c.detail << "\n";
  }
  EXPECT_EQ(names, gpu::doctor_check_names());
  for (const auto& c : r.checks) {
    if (c.name == "sm clock") {
      EXPECT_NE(c.detail.find("clock probe"), std::string::npos) << c.detail;
    }
  }
  const int code = gpu::doctor_exit_code(r.checks);
  EXPECT_TRUE(code == 0 || code == 1);
}

TEST(DoctorGpu, TheSummaryLineAndTheCliAgreeOnTheDevice) {
  ASSAY_REQUIRE_GPU();
  const DeviceRecord d = gpu::query_device(0);
  const std::string line = gpu::doctor_summary_line(0);
  EXPECT_EQ(line.rfind("doctor: " + d.name + ": ", 0), 0u) << line;
  EXPECT_NE(line.find(" MHz, "), std::string::npos) << line;
  std::cout << line << "\n";

  const auto cli = test::run_assay("doctor --json");
  ASSERT_TRUE(cli.code == 0 || cli.code == 1) << cli.out;
  const auto j = nlohmann::json::parse(cli.out.substr(cli.out.find('{')));
  EXPECT_EQ(j.at("device").at("uuid"), d.uuid);
  EXPECT_EQ(j.at("checks").size(), gpu::doctor_check_names().size());
  EXPECT_EQ(j.at("exit_code").get<int>(), cli.code);
  const auto env = gpu::gpu_environment(d.uuid);
  EXPECT_EQ(env.at("nvml"), "available");
  EXPECT_TRUE(env.at("persistence_mode") == "on" || env.at("persistence_mode") == "off") << env.at("persistence_mode");
}
