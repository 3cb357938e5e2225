# Generates generated/assay/version.hpp at every build (not only at configure time), so the
# commit baked into the binary is the one it was built from: `git describe --dirty` marks a
# build from uncommitted changes.
if(CMAKE_SCRIPT_MODE_FILE)
  execute_process(COMMAND git describe --always --dirty --abbrev=12
    WORKING_DIRECTORY ${SOURCE_DIR} OUTPUT_VARIABLE ASSAY_BUILD_COMMIT
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT ASSAY_BUILD_COMMIT)
    set(ASSAY_BUILD_COMMIT "unknown")
  endif()
  configure_file(${SOURCE_DIR}/src/core/version.hpp.in ${OUTPUT}.tmp @ONLY)
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUTPUT}.tmp ${OUTPUT})
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

add_custom_target(assay_version ALL
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DPROJECT_VERSION=${PROJECT_VERSION}
          -DOUTPUT=${PROJECT_BINARY_DIR}/generated/assay/version.hpp -P ${CMAKE_CURRENT_LIST_FILE}
  BYPRODUCTS ${PROJECT_BINARY_DIR}/generated/assay/version.hpp
  COMMENT "assay version from git describe")
