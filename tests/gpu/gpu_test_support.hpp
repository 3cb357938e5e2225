#pragma once
// GPU tests skip visibly (GTEST_SKIP with the reason) where there is no CUDA device.
#include <gtest/gtest.h>

#include <string>

#include "measure/executor.hpp"

#define ASSAY_REQUIRE_GPU()                                                        \
  do {                                                                             \
    std::string assay_why_;                                                        \
    if (::assay::measure::cuda_devices(&assay_why_) == 0)                           \
      GTEST_SKIP() << "skipped: no CUDA device (" << assay_why_ << ")";            \
  } while (0)
