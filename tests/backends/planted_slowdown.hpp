#pragma once
// A planted slowdown, for the regression-gate experiments (issue 25): with
// ASSAY_TESTBED_SLOWDOWN=F in its environment (F in (0, 1), e.g. 0.03), assay-testbed replaces
// every built backend by one that makes the same call and then spins, so that a call takes
// (1 + F) times as long. The spin's length is calibrated per instance and the slowdown it gives
// is measured there and written into the variant ("... +planted 3.02%"); where one more launch
// alone costs more than F/2 (a kernel of a few microseconds), nothing is planted and the variant
// says so, so that such a case stays identical code. The margin keeps the decision the same in
// every worker process of a case: at the limit, some rounds of a case planted and others did not
// (H100, bench/README.md). F = 0 is the control: the same wrapping and
// calibration (a burst of calls before the measurement), nothing planted; an A/A or planted
// experiment gives it to the base so that the two sides differ by the spin alone.
// ASSAY_TESTBED_PLANT=extra-k (gemm only; default spin) plants inside the kernel instead: A and B
// zero-padded along k by 64·round(F·k/64), the same C from F more multiply-adds in the same launch.
#include <vector>

#include "backends/backend.hpp"

namespace assay {

// The wrapped built backends; empty unless ASSAY_TESTBED_SLOWDOWN is set. Exits with a message
// for a value that is not a fraction in (0, 1).
std::vector<const Backend*> planted_slowdown_backends();

#ifdef ASSAY_HAVE_CUDA
// The GPU side (planted_slowdown_gpu.cu): a spin of `cycles` SM clock cycles on `stream`, and
// the median time of `fn` on a stream of its own (3 warm-up calls, then 21 timed with events).
void launch_spin(long long cycles, void* stream);
double median_gpu_ns(void (*fn)(void* ctx, void* stream), void* ctx);
#endif

}  // namespace assay
