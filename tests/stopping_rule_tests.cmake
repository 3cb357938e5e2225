# The adapters' Python stopping rule (adapters/assay_adapter/stopping.py) against assay's C++
# one (measure::StoppingRule): stopping_rule_probe runs the C++ rule on the sequences that
# test_stopping_rule_parity.py generates, and the test asserts the same decisions and CI
# half-widths at every step. Standard-library Python only: no GPU, numpy or torch.
add_executable(assay_stopping_rule_probe ${CMAKE_CURRENT_LIST_DIR}/stopping_rule/stopping_rule_probe.cpp)
target_link_libraries(assay_stopping_rule_probe PRIVATE assay_measure)
set_target_properties(assay_stopping_rule_probe PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  add_test(NAME adapters.stopping_rule_parity
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/stopping_rule/test_stopping_rule_parity.py
                   $<TARGET_FILE:assay_stopping_rule_probe> ${PROJECT_SOURCE_DIR}/adapters)
  set_tests_properties(adapters.stopping_rule_parity PROPERTIES TIMEOUT 300)
else()
  message(STATUS "assay: no python3 interpreter; the test adapters.stopping_rule_parity is not registered")
endif()
