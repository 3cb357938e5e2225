# assay_add_benchmark(NAME SOURCES src... [NO_MAIN]): a program that is the assay command line
# with the kernels, workloads and benchmarks its sources register (include/assay/bench.hpp).
# Without NO_MAIN it gets assay's main(); with it, the sources call assay::bench::main.
function(assay_add_benchmark name)
  cmake_parse_arguments(A "NO_MAIN" "" "SOURCES" ${ARGN})
  if(NOT A_SOURCES)
    message(FATAL_ERROR "assay_add_benchmark(${name}): no SOURCES")
  endif()
  add_executable(${name} ${A_SOURCES})
  target_compile_features(${name} PRIVATE cxx_std_20)
  if(A_NO_MAIN)
    target_link_libraries(${name} PRIVATE assay::bench)
  else()
    target_link_libraries(${name} PRIVATE assay::bench_main)
  endif()
endfunction()
