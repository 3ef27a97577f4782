// The cuda backend when mxv is built without CUDA (MXV_ENABLE_CUDA=OFF or no nvcc): it reports
// itself unavailable with the reason, so tests skip (or fail under MXV_REQUIRE_GPU=1).
#include <stdexcept>

#include "mxv/device/cuda_backend.h"

namespace mxv::device {

Availability cuda_availability() {
  return {false, "mxv was built without CUDA (MXV_ENABLE_CUDA=OFF or no nvcc found)"};
}

std::unique_ptr<Backend> make_cuda_backend() {
  throw std::runtime_error("cuda backend unavailable: " + cuda_availability().reason);
}

}  // namespace mxv::device
