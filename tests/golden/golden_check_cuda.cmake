# `mxv golden check --backend cuda` as a ctest case of the gpu label (run by ci/gpu on the GPU
# runner): the committed golden set on the real kernels. Without a usable GPU it reports SKIPPED
# (matched by the test's SKIP_REGULAR_EXPRESSION), unless MXV_REQUIRE_GPU=1 makes that a failure,
# as for every gpu test (DESIGN: a missing GPU never passes silently).
# Usage: cmake -DMXV=<path to mxv> -P golden_check_cuda.cmake
execute_process(COMMAND "${MXV}" golden check --backend cuda
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 2 AND err MATCHES "--backend cuda is unavailable")
  if("$ENV{MXV_REQUIRE_GPU}" STREQUAL "1")
    message(FATAL_ERROR "MXV_REQUIRE_GPU=1 but the cuda backend is unavailable")
  endif()
  message("golden check on cuda SKIPPED: the cuda backend is unavailable here")
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "mxv golden check --backend cuda exited ${rc}")
endif()
