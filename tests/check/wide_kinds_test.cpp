// Tests of wide_kinds.h: every WideType has the check library's code kind and input kind of the
// same width and encoding (a bf16 tensor must be decoded as bf16 in a report, not as fp16).
#include "mxv/check/wide_kinds.h"

#include <gtest/gtest.h>

#include <string>

#include "mxv/check/storage_map.h"

namespace mxv::check {
namespace {

TEST(CheckWideKinds, EachWideTypeHasItsOwnKinds) {
  struct Row {
    WideType type;
    CodeKind code;
    InputKind input;
  };
  const Row rows[] = {
      {WideType::kFp32, CodeKind::kFp32, InputKind::kFp32},
      {WideType::kBf16, CodeKind::kBf16, InputKind::kBf16},
      {WideType::kFp16, CodeKind::kFp16, InputKind::kFp16},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(std::string(mxv::to_string(r.type)));
    EXPECT_EQ(code_kind(r.type), r.code);
    EXPECT_EQ(input_kind(r.type), r.input);
    EXPECT_EQ(slot_bits(code_kind(r.type)), 8 * mxv::bytes_of(r.type));
  }
}

}  // namespace
}  // namespace mxv::check
