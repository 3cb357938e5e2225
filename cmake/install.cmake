# `cmake --install` of assay: the command line, the adapters, and the CMake package a user's
# program finds with find_package(assay) to link its own kernels against assay
# (include/assay/bench.hpp, docs/your-kernel.md).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(assay_layers stats core tune suite graph gpu kernels workloads backends measure verify store compare report
                 runner cli bench_api)
if(ASSAY_WITH_CUDA)
  list(INSERT assay_layers 5 graph_gpu)  # after kernels: the lazy engine's GPU executor
endif()
set(assay_archives)
foreach(layer IN LISTS assay_layers)
  list(APPEND assay_archives assay_${layer})
endforeach()
install(TARGETS assay RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The lazy engine's C API and its Python front end, which finds the library at <prefix>/lib.
install(TARGETS assay_lazy LIBRARY DESTINATION lib)
install(FILES ${PROJECT_SOURCE_DIR}/include/assay/lazy_c.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/assay)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/assay_lazy DESTINATION ${CMAKE_INSTALL_DATADIR}/assay/python
        PATTERN "__pycache__" EXCLUDE)
install(TARGETS assay_third_party ${assay_archives} assay_bench_main EXPORT assayTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}/assay)
install(EXPORT assayTargets NAMESPACE assay:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/assay)
install(FILES ${PROJECT_SOURCE_DIR}/include/assay/bench.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/assay)
# Found by the adapter backends beside the binary's prefix (src/backends/external_backend.cpp).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/adapters/ DESTINATION ${CMAKE_INSTALL_DATADIR}/assay/adapters
        PATTERN "__pycache__" EXCLUDE)

set(ASSAY_PACKAGE_WITH_CUDA ${ASSAY_WITH_CUDA})
# Packages whose imported targets the exported ones link (SQLite3, LibLZMA where linked shared).
get_property(ASSAY_PACKAGE_DEPENDENCIES GLOBAL PROPERTY ASSAY_PACKAGE_DEPENDENCIES)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/assayConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/assayConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/assay)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/assayConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/assayConfig.cmake ${PROJECT_BINARY_DIR}/package/assayConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/assay_add_benchmark.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/assay)
