// assay-testbed: the assay command line with the planted-fault backends added (when
// ASSAY_TEST_BACKENDS=1), for the crash-isolation tests. Its workers are this binary too.
#include "cli/commands.hpp"
#include "test_backends.hpp"

int main(int argc, char** argv) {
  assay::add_backends(assay::test_backends());
  return assay::cli::run_cli(argc, argv);
}
