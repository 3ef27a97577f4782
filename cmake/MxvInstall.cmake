# `cmake --install <build> --prefix DIR`: the libraries, their headers, the `mxv` program and a
# CMake package (DIR/lib/cmake/mxv) so that another project writes `find_package(mxv)` and links
# mxv::reference, mxv::check, mxv::emulated_backend, ... (docs/packages.md). Every path in the
# installed package files is relative to DIR, so the tree can be moved or packed as a whole.
include(CMakePackageConfigHelpers)

set(MXV_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxv CACHE STRING
  "Where the CMake package files go, relative to the install prefix")

get_property(mxv_targets GLOBAL PROPERTY MXV_INSTALLED_TARGETS)
get_property(mxv_include_dirs GLOBAL PROPERTY MXV_INSTALLED_INCLUDE_DIRS)

# Two export sets, the package's two components (mxvConfig.cmake.in): `check`, what a test that
# only holds outputs to the reference links (it needs Eigen3 alone), and `full`, everything else
# (GTest, rapidcheck, CLI11, HDF5, OpenSSL, CUDA). mxvTargets.cmake refers to the check targets.
set(mxv_check_targets mxv_io mxv_reference mxv_check mxv_check_quantize_specs)
set(mxv_full_targets ${mxv_targets})
list(REMOVE_ITEM mxv_full_targets ${mxv_check_targets})
foreach(set_and_targets "mxvCheckTargets;${mxv_check_targets}" "mxvTargets;${mxv_full_targets}")
  list(POP_FRONT set_and_targets export_set)
  install(TARGETS ${set_and_targets} EXPORT ${export_set} COMPONENT mxv
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT ${export_set} NAMESPACE mxv:: DESTINATION ${MXV_INSTALL_CMAKEDIR} COMPONENT mxv)
endforeach()
foreach(dir IN LISTS mxv_include_dirs)
  install(DIRECTORY ${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT mxv)
endforeach()
# The data files (tools/include/mxv/io/data_files.h): the committed rcp.approx capture
# (rcp_approx.h) and the committed golden set (golden_catalogue.h), in DIR/share/mxv where the
# installed program finds them relative to itself. The build tree gets the same layout as links
# into the checkout (regen then rewrites the checkout's golden files), made when CMake configures.
install(FILES golden/captures/rcp_approx_ftz_f32_sm90.bin
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mxv COMPONENT mxv)
install(FILES golden/codes.h5 golden/quantize.h5 golden/dequantize.h5 golden/swiglu.h5
  DESTINATION ${CMAKE_INSTALL_DATADIR}/mxv/golden COMPONENT mxv)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/share/mxv)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/golden/captures/rcp_approx_ftz_f32_sm90.bin
  ${PROJECT_BINARY_DIR}/share/mxv/rcp_approx_ftz_f32_sm90.bin SYMBOLIC)
file(CREATE_LINK ${PROJECT_SOURCE_DIR}/golden ${PROJECT_BINARY_DIR}/share/mxv/golden SYMBOLIC)

configure_package_config_file(cmake/mxvConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/mxvConfig.cmake
  INSTALL_DESTINATION ${MXV_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: a new minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/mxvConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/mxvConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/mxvConfigVersion.cmake
  DESTINATION ${MXV_INSTALL_CMAKEDIR} COMPONENT mxv)
