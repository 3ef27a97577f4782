# Helpers shared by every folder: one way to declare a library, a test and a benchmark.

# Warnings for C++ (and CUDA host code through -Xcompiler).
function(mxv_set_warnings target)
  set(cxx_warnings -Wall -Wextra -Wconversion -Wsign-conversion -Wshadow)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # g++ 12 at -O3 reports false -Wrestrict errors inside libstdc++'s std::string (GCC PR 105329).
    list(APPEND cxx_warnings -Wno-restrict)
  endif()
  if(MXV_WARNINGS_AS_ERRORS)
    list(APPEND cxx_warnings -Werror)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${cxx_warnings}>)
  if(MXV_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()

# No path of this machine in what is installed (the tree is moved, archived, shipped in a wheel):
# __FILE__ / __builtin_FILE() (the emulator's call sites) and debug information name sources
# relative to the checkout. The build tree's map comes last so that it wins when it lies inside
# the checkout. Tests, which are never installed, keep their flags (and their compiler cache).
function(mxv_strip_machine_paths target)
  foreach(map "${PROJECT_SOURCE_DIR}/=" "${PROJECT_BINARY_DIR}/=build/")
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:C,CXX>:-ffile-prefix-map=${map}> $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-ffile-prefix-map=${map}>)
  endforeach()
endfunction()

# Every library is installed and exported as mxv::<name> (cmake/MxvInstall.cmake reads these
# global lists): its target, and its folder's public headers.
include(GNUInstallDirs)
function(mxv_register_installed target include_dir)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${ARGN})
  set_property(GLOBAL APPEND PROPERTY MXV_INSTALLED_TARGETS ${target})
  get_property(dirs GLOBAL PROPERTY MXV_INSTALLED_INCLUDE_DIRS)
  if(NOT include_dir IN_LIST dirs AND EXISTS ${include_dir})
    set_property(GLOBAL APPEND PROPERTY MXV_INSTALLED_INCLUDE_DIRS ${include_dir})
  endif()
endfunction()

# mxv_add_library(<name> SOURCES ... [DEPS ...]) -> target mxv_<name>, alias mxv::<name>,
# public headers in <folder>/include.
function(mxv_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(mxv_${name} STATIC ${ARG_SOURCES})
  add_library(mxv::${name} ALIAS mxv_${name})
  target_include_directories(mxv_${name} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_compile_features(mxv_${name} PUBLIC cxx_std_20)
  target_link_libraries(mxv_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(mxv_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  mxv_set_warnings(mxv_${name})
  mxv_strip_machine_paths(mxv_${name})
  mxv_register_installed(mxv_${name} ${CMAKE_CURRENT_SOURCE_DIR}/include ${name})
endfunction()

# mxv_add_header_library(<name> INCLUDE <dir> [DEPS ...]) -> interface target mxv_<name>, alias
# mxv::<name>, headers in <dir> (relative to the current folder).
function(mxv_add_header_library name)
  cmake_parse_arguments(ARG "" "INCLUDE" "DEPS" ${ARGN})
  add_library(mxv_${name} INTERFACE)
  add_library(mxv::${name} ALIAS mxv_${name})
  target_include_directories(mxv_${name} INTERFACE
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/${ARG_INCLUDE}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(mxv_${name} INTERFACE ${ARG_DEPS})
  mxv_register_installed(mxv_${name} ${CMAKE_CURRENT_SOURCE_DIR}/${ARG_INCLUDE} ${name})
endfunction()

# mxv_add_test(NAME <name> SOURCES ... [DEPS ...] LABELS ... [TIMEOUT s] [MAIN])
# One GoogleTest executable; each TEST becomes a ctest case carrying LABELS. A property test names
# rapidcheck in DEPS (no test links what it does not use). GTEST_SKIP shows
# as "skipped" in ctest (gtest_discover_tests adds SKIP_REGULAR_EXPRESSION). Without MAIN the
# test links gtest_main; with MAIN it supplies its own main().
function(mxv_add_test)
  cmake_parse_arguments(ARG "MAIN" "NAME;TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  if(ARG_MAIN)
    target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest Threads::Threads)
  else()
    target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main Threads::Threads)
  endif()
  mxv_set_warnings(${ARG_NAME})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  # gtest_discover_tests splits a list-valued property into separate arguments, so a second label
  # would silently become a bogus property name: allow exactly one.
  list(LENGTH ARG_LABELS n_labels)
  if(NOT n_labels EQUAL 1)
    message(FATAL_ERROR "mxv_add_test(${ARG_NAME}): give exactly one label (got '${ARG_LABELS}')")
  endif()
  gtest_discover_tests(${ARG_NAME}
    DISCOVERY_TIMEOUT 120
    DISCOVERY_MODE PRE_TEST NO_PRETTY_VALUES
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
endfunction()

# mxv_add_tests([PREFIX <p>] DEPS ... LABELS <label> TESTS <name> ...)
# Several tests of one folder that share their dependencies and label, one GoogleTest executable
# each: test <p><name> built from <name>.cpp (tests mirror sources: <file>_test.cpp). A test with
# its own sources, definitions or timeout uses mxv_add_test.
function(mxv_add_tests)
  cmake_parse_arguments(ARG "" "PREFIX;LABELS" "DEPS;TESTS" ${ARGN})
  foreach(name IN LISTS ARG_TESTS)
    mxv_add_test(NAME ${ARG_PREFIX}${name} SOURCES ${name}.cpp DEPS ${ARG_DEPS} LABELS ${ARG_LABELS})
  endforeach()
endfunction()

# mxv_add_benchmark(NAME <what>_bench [MAIN] [DEPS ...]): the benchmark program <what>_bench of
# this folder, from bench/<what>_bench.cpp or, built only with CUDA, bench/<what>_bench.cu; run as
# build/<preset>/<folder>/<what>_bench (BENCHMARKS.md names every one). Without MAIN it is a Google
# Benchmark program, built when Google Benchmark is found (MXV_BUILD_BENCHMARKS); with MAIN it has
# its own main() and command line (the GPU benchmarks, run by hand on the GPU machine).
function(mxv_add_benchmark)
  cmake_parse_arguments(ARG "MAIN" "NAME" "DEPS" ${ARGN})
  if(NOT ARG_NAME MATCHES "_bench$")
    message(FATAL_ERROR "mxv_add_benchmark(${ARG_NAME}): a benchmark is named <what>_bench")
  endif()
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/bench/${ARG_NAME}.cu)
    if(NOT MXV_ENABLE_CUDA)
      return()
    endif()
    set(source bench/${ARG_NAME}.cu)
  else()
    set(source bench/${ARG_NAME}.cpp)
  endif()
  if(NOT ARG_MAIN AND NOT MXV_BUILD_BENCHMARKS)
    return()
  endif()
  add_executable(${ARG_NAME} ${source})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} Threads::Threads)
  if(NOT ARG_MAIN)
    target_link_libraries(${ARG_NAME} PRIVATE benchmark::benchmark)
  endif()
  mxv_set_warnings(${ARG_NAME})
endfunction()

# mxv_add_backend_test(NAME <name> SOURCES ... [DEPS ...] [TIMEOUT s])
# A kernel test run on every backend. Test names carry the backend ("cuda" / "emulated", e.g. a
# TEST_P instance suffix), and each backend's cases get their own labels: `gpu` for cuda (with a
# CTest resource group of one GPU, so `ctest -j` on a multi-GPU runner gives each process its own),
# `emu` for emulated, `cpu` for cases that use no backend (argument validation, planning).
function(mxv_add_backend_test)
  cmake_parse_arguments(ARG "" "NAME;TIMEOUT" "SOURCES;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main Threads::Threads)
  mxv_set_warnings(${ARG_NAME})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  gtest_discover_tests(${ARG_NAME} TEST_FILTER "*cuda*" DISCOVERY_TIMEOUT 120 DISCOVERY_MODE PRE_TEST NO_PRETTY_VALUES
    PROPERTIES LABELS "gpu" TIMEOUT ${ARG_TIMEOUT} RESOURCE_GROUPS "gpus:1")
  gtest_discover_tests(${ARG_NAME} TEST_FILTER "*emulated*" DISCOVERY_TIMEOUT 120 DISCOVERY_MODE PRE_TEST NO_PRETTY_VALUES
    PROPERTIES LABELS "emu" TIMEOUT ${ARG_TIMEOUT})
  gtest_discover_tests(${ARG_NAME} TEST_FILTER "-*cuda*:*emulated*" DISCOVERY_TIMEOUT 120 DISCOVERY_MODE PRE_TEST NO_PRETTY_VALUES
    PROPERTIES LABELS "cpu" TIMEOUT ${ARG_TIMEOUT})
endfunction()

# mxv_test_uses_nvcc(<target>): the test compiles CUDA sources with nvcc at test time
# (mxv/test_support/nvcc.h): it is given MXV_NVCC_EXECUTABLE (the nvcc CMake finds, "" when none,
# and the test then skips with the reason) and MXV_SOURCE_DIR (the sources' root, for -I).
function(mxv_test_uses_nvcc target)
  find_program(MXV_NVCC_EXECUTABLE nvcc HINTS /usr/local/cuda/bin ENV CUDA_PATH PATH_SUFFIXES bin)
  set(nvcc "${MXV_NVCC_EXECUTABLE}")
  if(NOT nvcc)
    set(nvcc "")
  endif()
  target_link_libraries(${target} PRIVATE mxv::test_support)
  target_compile_definitions(${target} PRIVATE
    MXV_SOURCE_DIR="${PROJECT_SOURCE_DIR}" MXV_NVCC_EXECUTABLE="${nvcc}")
endfunction()
