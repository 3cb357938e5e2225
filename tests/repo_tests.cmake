# Repository hygiene checks (issue 24, item 6: a lean repository). Included from
# tests/CMakeLists.txt. No build dependency: the check reads the source tree only.
# bench/ must stay under its budget (3 MiB on disk), hold no source forks or patches, and the
# tracked tree under ~6 MB; the budgets are stated at the top of the script and in bench/README.md.
find_program(ASSAY_BASH bash)
if(ASSAY_BASH)
  add_test(NAME repo.bench_budget
           COMMAND ${ASSAY_BASH} ${PROJECT_SOURCE_DIR}/scripts/check_bench_budget.sh
           WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  set_tests_properties(repo.bench_budget PROPERTIES LABELS repo TIMEOUT 60)
endif()
