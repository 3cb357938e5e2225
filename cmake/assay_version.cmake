# The assay version and the git commit the binary was built from (the commit of the
# working tree at run time is read separately, since results describe the run).
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE ASSAY_BUILD_COMMIT
  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT ASSAY_BUILD_COMMIT)
  set(ASSAY_BUILD_COMMIT "unknown")
endif()
configure_file(${PROJECT_SOURCE_DIR}/src/core/version.hpp.in
  ${PROJECT_BINARY_DIR}/generated/assay/version.hpp @ONLY)
