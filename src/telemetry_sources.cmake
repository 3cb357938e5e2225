# NVML telemetry, the environment record and `assay doctor` (issue 4). Included from
# src/CMakeLists.txt after the assay_core library and the assay executable are defined.
target_sources(assay_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/gpu/nvml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu/telemetry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gpu/doctor.cpp
)
# The device and the load test of the doctor need CUDA; a CPU-only assay says "skipped".
if(ASSAY_WITH_CUDA)
  target_sources(assay_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu/doctor_cuda.cpp)
else()
  target_sources(assay_core PRIVATE ${CMAKE_CURRENT_LIST_DIR}/gpu/doctor_no_cuda.cpp)
endif()
target_link_libraries(assay_core PUBLIC ${CMAKE_DL_LIBS})
target_sources(assay PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cli/doctor_command.cpp)
