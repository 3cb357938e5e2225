// assay: trustworthy GPU performance engineering.
#include "cli/commands.hpp"

int main(int argc, char** argv) { return assay::cli::run_cli(argc, argv); }
