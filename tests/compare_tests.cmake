# Tests of comparing runs, the history database and the CI outputs (issue 3). Included from
# tests/CMakeLists.txt.
add_executable(assay_compare_tests
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_verdicts.cpp
)
target_link_libraries(assay_compare_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
set_target_properties(assay_compare_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
gtest_discover_tests(assay_compare_tests DISCOVERY_TIMEOUT 60)
