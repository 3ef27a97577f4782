// Gate/up values from wide-type bytes (gate_up_bytes.h).
#include "mxv/reference/gate_up_bytes.h"

#include <cstring>

#include "mxv/reference/quantize.h"

namespace mxv {

GateUpBytes::GateUpBytes(WideType type, std::span<const std::uint8_t> bytes, std::size_t rows,
                         std::size_t intermediate) {
  if (type == WideType::kBf16) {
    bf16_.resize(bytes.size() / 2);
    if (!bf16_.empty()) std::memcpy(bf16_.data(), bytes.data(), bf16_.size() * 2);
    view_ = GateUpView::from_bf16(bf16_, rows, intermediate);
  } else {
    fp32_ = widen_to_fp32(type, bytes);
    view_ = GateUpView::from_fp32(fp32_, rows, intermediate);
  }
}

}  // namespace mxv
