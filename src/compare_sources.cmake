# Comparing runs, the history database and the CI outputs (issue 3). Included from
# src/CMakeLists.txt after the assay_core library and the assay executable are defined.
target_sources(assay_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/stats/distributions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats/rank_tests.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats/bootstrap.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats/sample_comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats/change_points.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/sqlite_db.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/case_key.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/history_db.cpp
  ${CMAKE_CURRENT_LIST_DIR}/store/run_set.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/comparison.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/gate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare_markdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare_junit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare_csv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/compare_bmf.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/session_summary.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report/history_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/runner/repeat.cpp
)
target_sources(assay PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cli/compare_command.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cli/history_command.cpp
)

# SQLite for the history: the static archive where the distribution ships one (Debian's
# libsqlite3-dev does), so that the binary needs no libsqlite3 on the GPU host; else shared
# (libsqlite3.so.0 is present on a stock Ubuntu 24.04).
find_path(SQLITE3_INCLUDE_DIR sqlite3.h REQUIRED)
find_library(SQLITE3_STATIC_LIBRARY NAMES libsqlite3.a)
if(SQLITE3_STATIC_LIBRARY)
  target_link_libraries(assay_core PUBLIC ${SQLITE3_STATIC_LIBRARY} ${CMAKE_DL_LIBS} m)
  message(STATUS "assay: SQLite3 static (${SQLITE3_STATIC_LIBRARY})")
else()
  find_package(SQLite3 REQUIRED)
  target_link_libraries(assay_core PUBLIC SQLite::SQLite3)
  message(STATUS "assay: SQLite3 shared")
endif()
target_include_directories(assay_core PUBLIC ${SQLITE3_INCLUDE_DIR})
