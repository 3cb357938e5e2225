# The hostile-input corpus (issue 26): suites, command lines, results files and adapters that
# must each end with their documented exit code and message, never a crash, a hang or a
# half-written results file. tests/hostile/run_corpus.py runs them all (standard-library
# Python); tests/hostile/README.md describes the layout.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME hostile.corpus
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/hostile/run_corpus.py
                   $<TARGET_FILE:assay> ${PROJECT_SOURCE_DIR} --jobs 2)
  set_tests_properties(hostile.corpus PROPERTIES TIMEOUT 300 LABELS hostile)
else()
  message(STATUS "assay: no python3 interpreter; the test hostile.corpus is not registered")
endif()
