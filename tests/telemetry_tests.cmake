# Tests of NVML telemetry and `assay doctor` (issue 4). Included from tests/CMakeLists.txt.
add_executable(assay_telemetry_tests ${CMAKE_CURRENT_LIST_DIR}/unit/test_telemetry.cpp)
target_link_libraries(assay_telemetry_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
target_compile_definitions(assay_telemetry_tests PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
add_dependencies(assay_telemetry_tests assay)
set_target_properties(assay_telemetry_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
gtest_discover_tests(assay_telemetry_tests DISCOVERY_TIMEOUT 60)

if(ASSAY_WITH_CUDA)
  add_executable(assay_telemetry_gpu_tests ${CMAKE_CURRENT_LIST_DIR}/gpu/test_telemetry_gpu.cpp)
  target_link_libraries(assay_telemetry_gpu_tests PRIVATE assay_core GTest::gtest GTest::gtest_main)
  target_compile_definitions(assay_telemetry_gpu_tests PRIVATE ASSAY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  add_dependencies(assay_telemetry_gpu_tests assay)
  set_target_properties(assay_telemetry_gpu_tests PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  target_link_options(assay_telemetry_gpu_tests PRIVATE -static-libstdc++ -static-libgcc)
  # Without a device every test prints a visible GTEST_SKIP line.
  gtest_discover_tests(assay_telemetry_gpu_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu)
endif()
