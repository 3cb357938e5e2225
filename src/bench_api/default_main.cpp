// The main() of a program made with assay_add_benchmark (unless it has its own).
#include <assay/bench.hpp>

ASSAY_BENCH_MAIN()
