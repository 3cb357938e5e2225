# Adapters (external backends speaking docs/adapters.md) and the mlp / attention workloads.
target_sources(assay_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/backends/subprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/backends/adapter_protocol.cpp
  ${CMAKE_CURRENT_LIST_DIR}/backends/external_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workloads/sampled_rows.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workloads/mlp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/workloads/attention.cpp
)
