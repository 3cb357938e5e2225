// assay-testbed: the assay command line with the planted-fault backends added (when
// ASSAY_TEST_BACKENDS=1), and with every built backend slowed by a planted fraction (when
// ASSAY_TESTBED_SLOWDOWN=F), for the crash-isolation and regression-gate tests. Its workers are
// this binary too, with the same environment.
#include "cli/commands.hpp"
#include "planted_slowdown.hpp"
#include "test_backends.hpp"

int main(int argc, char** argv) {
  assay::add_backends(assay::test_backends());
  assay::add_backends(assay::planted_slowdown_backends());
  return assay::cli::run_cli(argc, argv);
}
