# The Hopper flash attention uses wgmma and setmaxnreg, which exist only for the arch-specific
# sm_90a target: built for that target alone, like the Hopper GEMM (gemm/hopper/hopper.cmake).
add_library(assay_hopper_attention OBJECT ${CMAKE_CURRENT_LIST_DIR}/flash_hopper.cu
                                          ${CMAKE_CURRENT_LIST_DIR}/flash_hopper_fp8.cu)
set_target_properties(assay_hopper_attention PROPERTIES CUDA_ARCHITECTURES OFF CUDA_RUNTIME_LIBRARY Static
                                                        POSITION_INDEPENDENT_CODE OFF)
target_include_directories(assay_hopper_attention PRIVATE ${PROJECT_BINARY_DIR}/layers/kernels)
target_link_libraries(assay_hopper_attention PRIVATE assay_core)
target_compile_options(assay_hopper_attention PRIVATE
  -gencode=arch=compute_90a,code=sm_90a -lineinfo --expt-relaxed-constexpr
  $<$<BOOL:${ASSAY_PTXAS_VERBOSE}>:-Xptxas=-v>)
target_sources(assay_kernels PRIVATE $<TARGET_OBJECTS:assay_hopper_attention>)
