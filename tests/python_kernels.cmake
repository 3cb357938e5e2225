# Python callables as backends (py:MODULE:FUNCTION, issue 30 item 1): the torch adapter's py:
# variant and the fresh-inputs recheck with planted broken callables (tests/python_kernels/),
# end to end through `assay run --device cpu`, and `python3 -m assay_bench` on the python_sdpa
# example. CPU only; each test exits 77 (ctest: Skipped) when torch is not importable by
# ASSAY_TEST_PYTHON: by default the first of python3 on PATH and /usr/bin/python3 (Debian's
# python3-torch) that imports torch.
if(NOT DEFINED ASSAY_TEST_PYTHON)
  set(python_with_torch python3)
  foreach(candidate python3 /usr/bin/python3)
    execute_process(COMMAND ${candidate} -c "import torch" RESULT_VARIABLE no_torch OUTPUT_QUIET ERROR_QUIET)
    if(no_torch EQUAL 0)
      set(python_with_torch ${candidate})
      break()
    endif()
  endforeach()
  set(ASSAY_TEST_PYTHON ${python_with_torch} CACHE STRING "the Python (with torch) that runs the python_kernels tests")
endif()
set(python_kernels_dir ${PROJECT_SOURCE_DIR}/tests/python_kernels)
add_test(NAME python_kernels.adapter
         COMMAND ${ASSAY_TEST_PYTHON} ${python_kernels_dir}/test_adapter.py)
add_test(NAME python_kernels.e2e
         COMMAND ${ASSAY_TEST_PYTHON} ${python_kernels_dir}/test_e2e.py ${PROJECT_BINARY_DIR}/bin/assay)
add_test(NAME python_kernels.assay_bench
         COMMAND ${ASSAY_TEST_PYTHON} ${python_kernels_dir}/test_assay_bench.py ${PROJECT_BINARY_DIR}/bin/assay)
# The example's second path (examples/python_sdpa/README.md): assay_bench on the callable, one point.
# Skipped (77) like the others where that Python has no torch: assay_bench itself would fail there.
add_test(NAME python_kernels.example_sdpa
         COMMAND sh -c "\"$0\" -c 'import torch' 2>/dev/null || exit 77; exec \"$0\" \"$@\"" ${ASSAY_TEST_PYTHON}
                 -m assay_bench attention kernels:sdpa --shapes tiny --device cpu --quick
                 --python-path ${PROJECT_SOURCE_DIR}/examples/python_sdpa --assay ${PROJECT_BINARY_DIR}/bin/assay
                 --out ${PROJECT_BINARY_DIR}/python-sdpa-example)
set_tests_properties(python_kernels.example_sdpa PROPERTIES ENVIRONMENT PYTHONPATH=${PROJECT_SOURCE_DIR}/adapters)
set_tests_properties(python_kernels.adapter python_kernels.e2e python_kernels.assay_bench python_kernels.example_sdpa
                     PROPERTIES SKIP_RETURN_CODE 77 LABELS python TIMEOUT 240
                                WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})

# The lazy engine's Python front end (python/assay_lazy over libassay_lazy.so, issue 31 item 4)
# on the CPU reference executor.
add_test(NAME lazy_python.frontend COMMAND ${ASSAY_TEST_PYTHON} ${PROJECT_SOURCE_DIR}/tests/lazy_python/test_frontend.py)
set_tests_properties(lazy_python.frontend PROPERTIES SKIP_RETURN_CODE 77 LABELS python TIMEOUT 240
                     ENVIRONMENT "ASSAY_LAZY_LIB=${PROJECT_BINARY_DIR}/lib/libassay_lazy.so")
# ... and on its GPU executor (label gpu: run on the GPU machine; exit 77 without a device).
add_test(NAME lazy_python.gpu COMMAND ${ASSAY_TEST_PYTHON} ${PROJECT_SOURCE_DIR}/tests/lazy_python/test_gpu.py)
set_tests_properties(lazy_python.gpu PROPERTIES SKIP_RETURN_CODE 77 LABELS gpu TIMEOUT 240
                     ENVIRONMENT "ASSAY_LAZY_LIB=${PROJECT_BINARY_DIR}/lib/libassay_lazy.so")
