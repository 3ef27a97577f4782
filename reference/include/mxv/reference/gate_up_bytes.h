// SwiGLU's gate/up input read from the bytes of a wide type (little-endian, as the kernels and the
// golden files hold it): bf16 is viewed as its bits, so the model widens each value exactly where
// it uses it; fp32 and fp16 are widened to fp32 once (docs/semantics.md section 6).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mxv/reference/swiglu.h"
#include "mxv/reference/vocabulary.h"

namespace mxv {

/// Owns the values its view() points into, so it is neither copied nor moved.
class GateUpBytes {
 public:
  /// `bytes`: [rows, 2 * intermediate] values of `type`; the view validates the count when used.
  GateUpBytes(WideType type, std::span<const std::uint8_t> bytes, std::size_t rows, std::size_t intermediate);
  GateUpBytes(const GateUpBytes&) = delete;
  GateUpBytes& operator=(const GateUpBytes&) = delete;

  const GateUpView& view() const { return view_; }

 private:
  std::vector<std::uint16_t> bf16_;
  std::vector<float> fp32_;
  GateUpView view_;
};

}  // namespace mxv
