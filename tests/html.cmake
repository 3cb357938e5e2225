# The HTML report (docs/report.md): the renderer's unit tests, and the page in headless Chromium
# (Debian's chromium, driven by puppeteer-core from web/package-lock.json): no console error, as
# many plotted cases as the documents have ok cases, a screenshot in the build folder
# (html/report-cpu.png, uploaded by CI: docs/ci-workflow.md). Without node/npm or chromium the
# browser test is still registered but skips (ctest shows it as Skipped) with the reason.
assay_tests(assay_html_tests LINK assay_runner SOURCES unit/test_html_report.cpp)

find_program(ASSAY_CHROMIUM NAMES chromium chromium-browser google-chrome)
set(html_skip "")
if(NOT ASSAY_HTML_ASSETS)
  set(html_skip "no node/npm at configure time (Debian: npm)")
elseif(NOT ASSAY_CHROMIUM)
  set(html_skip "no chromium (Debian: chromium)")
endif()
if(html_skip)
  message(STATUS "assay: the HTML report's browser test skips: ${html_skip}")
  add_test(NAME html.report_in_chromium COMMAND ${CMAKE_COMMAND} -E echo "SKIP: ${html_skip}")
  set_tests_properties(html.report_in_chromium PROPERTIES LABELS html SKIP_REGULAR_EXPRESSION "SKIP:")
  return()
endif()
message(STATUS "assay: the HTML report's browser test runs ${ASSAY_CHROMIUM}")
add_test(NAME html.report_in_chromium
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/html/report_in_chromium.sh $<TARGET_FILE:assay> ${ASSAY_NODE}
                 ${ASSAY_CHROMIUM} ${PROJECT_BINARY_DIR}/web ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/html)
# 77: the build's `npm ci` failed, so there is no report to test (the script says why).
set_tests_properties(html.report_in_chromium PROPERTIES LABELS html TIMEOUT 180 SKIP_RETURN_CODE 77)
