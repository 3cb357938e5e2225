# The Hopper GEMM uses wgmma and setmaxnreg, which exist only for the arch-specific sm_90a
# target. It is built for that target alone (whatever CMAKE_CUDA_ARCHITECTURES says), so no
# plain sm_90 or sm_80 image of it exists to be picked by mistake; the dispatcher calls it
# only on compute capability 9.0 devices.
add_library(assay_hopper_gemm OBJECT ${CMAKE_CURRENT_LIST_DIR}/hopper_gemm.cu)
set_target_properties(assay_hopper_gemm PROPERTIES CUDA_ARCHITECTURES OFF CUDA_RUNTIME_LIBRARY Static
                                                   POSITION_INDEPENDENT_CODE OFF)
# The kernels layer's own headers and what it may include below it (core), nothing above.
target_include_directories(assay_hopper_gemm PRIVATE ${PROJECT_BINARY_DIR}/layers/kernels)
target_link_libraries(assay_hopper_gemm PRIVATE assay_core)
target_compile_options(assay_hopper_gemm PRIVATE
  -gencode=arch=compute_90a,code=sm_90a -lineinfo --expt-relaxed-constexpr
  # The register and spill report of every kernel, kept in the build log (docs/kernels/hopper-gemm.md).
  $<$<BOOL:${ASSAY_PTXAS_VERBOSE}>:-Xptxas=-v>)
target_sources(assay_kernels PRIVATE $<TARGET_OBJECTS:assay_hopper_gemm>)
