# `cmake --install` and `find_package(atoll)`: the libraries, the atoll
# executable and the public headers (include/atoll) and nothing else: the
# layers' headers stay inside the build (docs/api.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS atoll_graph atoll_poly atoll_backends atoll_npu atoll_lib atoll
        EXPORT atollTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/atoll DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT atollTargets NAMESPACE atoll:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/atoll)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/atollConfig.cmake.in
  ${PROJECT_BINARY_DIR}/atollConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/atoll)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/atollConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/atollConfig.cmake ${PROJECT_BINARY_DIR}/atollConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/AtollDependencies.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/atoll)
