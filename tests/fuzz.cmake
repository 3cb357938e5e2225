# Fuzzers (libFuzzer, through clang++) for the suite parser and the results reader, each run for a
# bounded time as a test, from the corpus kept in tests/fuzz/corpus. Not built where no clang++
# links -fsanitize=fuzzer (a message says so); the rest of the tests do not depend on them.
find_program(ASSAY_CLANGXX NAMES clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14)
set(ASSAY_FUZZ OFF)
if(ASSAY_CLANGXX)
  set(stub ${PROJECT_BINARY_DIR}/fuzz_probe.cpp)
  file(WRITE ${stub} "#include <cstddef>\n#include <cstdint>\nextern \"C\" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }\n")
  execute_process(COMMAND ${ASSAY_CLANGXX} -fsanitize=fuzzer,address,undefined ${stub} -o ${PROJECT_BINARY_DIR}/fuzz_probe
                  RESULT_VARIABLE probe_rc OUTPUT_QUIET ERROR_QUIET)
  if(probe_rc EQUAL 0)
    set(ASSAY_FUZZ ON)
  endif()
endif()
if(NOT ASSAY_FUZZ)
  message(STATUS "assay: no clang++ with libFuzzer; the fuzz tests are not built (Debian: clang, libclang-rt-14-dev)")
  return()
endif()
message(STATUS "assay: fuzzers built with ${ASSAY_CLANGXX}")

set(ASSAY_FUZZ_SECONDS 30 CACHE STRING "seconds each fuzz test runs")
# assay_fuzzer(<name> SOURCES ... [SEEDS dir...]): the target fuzz_<name> built with clang++ (ASan,
# UBSan and libFuzzer; UBSan findings abort), and the test fuzz.<name>. SEEDS: folders of the tree
# read as further corpus (the suites and test inputs, rather than copies of them in the corpus).
function(assay_fuzzer name)
  cmake_parse_arguments(F "" "" "SOURCES;SEEDS" ${ARGN})
  set(out ${PROJECT_BINARY_DIR}/bin/fuzz_${name})
  set(sources ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_${name}.cpp)
  foreach(s ${F_SOURCES})
    list(APPEND sources ${PROJECT_SOURCE_DIR}/src/${s})
  endforeach()
  add_custom_command(OUTPUT ${out}
    # NDEBUG as in the release build: toml++ asserts its own invariants on error paths in debug.
    COMMAND ${ASSAY_CLANGXX} -std=c++20 -O1 -g -DNDEBUG -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
            -DFMT_HEADER_ONLY=1 -DTOML_HEADER_ONLY=1 -I${PROJECT_SOURCE_DIR}/src -I${TOMLPP_INCLUDE_DIR} ${sources} -o ${out}
    DEPENDS ${sources} COMMENT "libFuzzer target fuzz_${name}" VERBATIM)
  add_custom_target(fuzz_${name} ALL DEPENDS ${out})
  add_test(NAME fuzz.${name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_fuzzer.sh ${out} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name}
                   ${ASSAY_FUZZ_SECONDS} ${PROJECT_BINARY_DIR}/fuzz/${name} ${F_SEEDS})
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()

assay_fuzzer(suite_parser SOURCES suite/suite_parser.cpp suite/axis_expansion.cpp suite/toml_prescan.cpp
                                  core/atomic_file.cpp core/dtype.cpp
                          SEEDS ${PROJECT_SOURCE_DIR}/suites ${CMAKE_CURRENT_SOURCE_DIR}/data)
assay_fuzzer(results_reader SOURCES core/results_json.cpp core/dtype.cpp stats/summary.cpp stats/serial_correlation.cpp
                                    stats/distributions.cpp)
