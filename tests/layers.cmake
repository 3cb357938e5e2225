# The layers of src/CMakeLists.txt are enforced by the build: an include that goes up fails to
# compile. Each probe is an object library outside `all`; the test builds it and expects the
# outcome. The control probe (a downward include) must build, so a failure of the others is
# the include and not the setup.
function(assay_layer_probe name source link expect_failure)
  add_library(${name} OBJECT EXCLUDE_FROM_ALL ${CMAKE_CURRENT_LIST_DIR}/layers/${source})
  target_link_libraries(${name} PRIVATE ${link})
  add_test(NAME layers.${name} COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target ${name})
  set_tests_properties(layers.${name} PROPERTIES WILL_FAIL ${expect_failure} RESOURCE_LOCK build LABELS layers)
endfunction()
assay_layer_probe(layer_probe_core_up core_includes_runner.cpp assay_core TRUE)
assay_layer_probe(layer_probe_measure_up measure_includes_verify.cpp assay_measure TRUE)
assay_layer_probe(layer_probe_verify_down verify_includes_measure.cpp assay_verify FALSE)
