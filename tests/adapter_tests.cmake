add_executable(assay_adapter_tests ${CMAKE_CURRENT_LIST_DIR}/unit/test_adapters.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unit/test_workloads.cpp)
target_link_libraries(assay_adapter_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
target_compile_definitions(assay_adapter_tests PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(assay_adapter_tests assay)
set_target_properties(assay_adapter_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
gtest_discover_tests(assay_adapter_tests DISCOVERY_TIMEOUT 60)
