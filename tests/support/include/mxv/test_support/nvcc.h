// The nvcc a test compiles CUDA sources with at test time (a test target that includes this is
// set up by mxv_test_uses_nvcc in cmake/MxvHelpers.cmake).
#pragma once

#include <cstdlib>
#include <string>

namespace mxv::test_support {

/// $MXV_NVCC when set and not empty, else the nvcc CMake found; "" when there is none (the test
/// skips with the reason).
inline std::string nvcc_path() {
  if (const char* env = std::getenv("MXV_NVCC"); env != nullptr && *env != '\0') return env;
  return MXV_NVCC_EXECUTABLE;
}

}  // namespace mxv::test_support
