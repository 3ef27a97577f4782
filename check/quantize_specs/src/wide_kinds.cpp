// WideType in the check library's terms (wide_kinds.h).
#include "mxv/check/wide_kinds.h"

#include <cstring>

namespace mxv::check {

CodeKind code_kind(WideType type) {
  switch (type) {
    case WideType::kFp32: return CodeKind::kFp32;
    case WideType::kBf16: return CodeKind::kBf16;
    case WideType::kFp16: return CodeKind::kFp16;
  }
  return CodeKind::kFp32;
}

InputKind input_kind(WideType type) {
  switch (type) {
    case WideType::kFp32: return InputKind::kFp32;
    case WideType::kBf16: return InputKind::kBf16;
    case WideType::kFp16: return InputKind::kFp16;
  }
  return InputKind::kNone;
}

std::vector<std::uint32_t> input_bits(WideType type, std::span<const std::uint8_t> bytes) {
  const std::size_t w = bytes_of(type);
  std::vector<std::uint32_t> bits(bytes.size() / w, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) std::memcpy(&bits[i], &bytes[i * w], w);
  return bits;
}

}  // namespace mxv::check
