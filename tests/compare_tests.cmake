# Tests of comparing runs, the history database and the CI outputs (issue 3). Included from
# tests/CMakeLists.txt.
add_executable(assay_compare_tests
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_verdicts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_history.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_sessions.cpp
)
target_link_libraries(assay_compare_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
set_target_properties(assay_compare_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
gtest_discover_tests(assay_compare_tests DISCOVERY_TIMEOUT 60)

# The CLI end to end: runs the built assay binary.
add_executable(assay_compare_cli_tests ${CMAKE_CURRENT_LIST_DIR}/unit/test_compare_cli.cpp)
target_link_libraries(assay_compare_cli_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
target_compile_definitions(assay_compare_cli_tests PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(assay_compare_cli_tests assay)
set_target_properties(assay_compare_cli_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
gtest_discover_tests(assay_compare_cli_tests DISCOVERY_TIMEOUT 60)
