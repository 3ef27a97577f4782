#include "numpy_buffers.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace mxv::python {

std::vector<float> floats_of(std::span<const std::uint8_t> bytes, const char* what) {
  if (bytes.size() % sizeof(float) != 0)
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(bytes.size()) +
                                " bytes is not a whole number of fp32 values");
  std::vector<float> out(bytes.size() / sizeof(float));
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

}  // namespace mxv::python
