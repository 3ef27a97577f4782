# `cmake --install <build> --prefix DIR`: the libraries, their headers, the `mxv` program and a
# CMake package (DIR/lib/cmake/mxv) so that another project writes `find_package(mxv)` and links
# mxv::reference, mxv::check, mxv::emulated_backend, ... (docs/packages.md). Every path in the
# installed package files is relative to DIR, so the tree can be moved or packed as a whole.
include(CMakePackageConfigHelpers)

set(MXV_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxv CACHE STRING
  "Where the CMake package files go, relative to the install prefix")

get_property(mxv_targets GLOBAL PROPERTY MXV_INSTALLED_TARGETS)
get_property(mxv_include_dirs GLOBAL PROPERTY MXV_INSTALLED_INCLUDE_DIRS)

install(TARGETS ${mxv_targets} EXPORT mxvTargets COMPONENT mxv
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(dir IN LISTS mxv_include_dirs)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT mxv)
endforeach()
# The committed rcp.approx capture (reference/include/mxv/reference/rcp_approx.h): installed beside
# the package so that MXV_RCP_APPROX_TABLE can name it wherever the tree was moved.
install(FILES golden/captures/rcp_approx_ftz_f32_sm90.bin
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mxv COMPONENT mxv)

install(EXPORT mxvTargets NAMESPACE mxv:: DESTINATION ${MXV_INSTALL_CMAKEDIR} COMPONENT mxv)
configure_package_config_file(cmake/mxvConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mxvConfig.cmake
  INSTALL_DESTINATION ${MXV_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: a new minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mxvConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mxvConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mxvConfigVersion.cmake
  DESTINATION ${MXV_INSTALL_CMAKEDIR} COMPONENT mxv)
