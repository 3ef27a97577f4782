# Helpers shared by every folder: one way to declare a library, a test and a benchmark.

# Warnings for C++ (and CUDA host code through -Xcompiler).
function(mxv_set_warnings target)
  set(cxx_warnings -Wall -Wextra -Wconversion -Wsign-conversion -Wshadow)
  if(MXV_WARNINGS_AS_ERRORS)
    list(APPEND cxx_warnings -Werror)
  endif()
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${cxx_warnings}>)
  if(MXV_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
endfunction()

# mxv_add_library(<name> SOURCES ... [DEPS ...]) -> target mxv_<name>, alias mxv::<name>,
# public headers in <folder>/include.
function(mxv_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(mxv_${name} STATIC ${ARG_SOURCES})
  add_library(mxv::${name} ALIAS mxv_${name})
  target_include_directories(mxv_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
  target_compile_features(mxv_${name} PUBLIC cxx_std_20)
  target_link_libraries(mxv_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(mxv_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  mxv_set_warnings(mxv_${name})
endfunction()

# mxv_add_test(NAME <name> SOURCES ... [DEPS ...] LABELS ... [TIMEOUT s] [MAIN])
# One GoogleTest executable; each TEST becomes a ctest case carrying LABELS. GTEST_SKIP shows
# as "skipped" in ctest (gtest_discover_tests adds SKIP_REGULAR_EXPRESSION). Without MAIN the
# test links gtest_main; with MAIN it supplies its own main().
function(mxv_add_test)
  cmake_parse_arguments(ARG "MAIN" "NAME;TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  if(ARG_MAIN)
    target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest rapidcheck Threads::Threads)
  else()
    target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main rapidcheck Threads::Threads)
  endif()
  mxv_set_warnings(${ARG_NAME})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  gtest_discover_tests(${ARG_NAME}
    DISCOVERY_TIMEOUT 120
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT})
endfunction()

# mxv_add_benchmark(NAME <name> SOURCES ... [DEPS ...]): a Google Benchmark program (not a test).
function(mxv_add_benchmark)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS" ${ARGN})
  if(NOT MXV_BUILD_BENCHMARKS)
    return()
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} benchmark::benchmark Threads::Threads)
  mxv_set_warnings(${ARG_NAME})
endfunction()
