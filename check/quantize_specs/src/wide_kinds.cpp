// WideType in the check library's terms (wide_kinds.h).
#include "mxv/check/wide_kinds.h"

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

}  // namespace mxv::check
