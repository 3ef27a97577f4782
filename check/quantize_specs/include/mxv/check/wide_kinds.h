// The check library's names for the reference's wide element types (WideType, vocabulary.h): the
// code kind a report decodes a wide tensor with, and the input kind a Context shows. They live
// beside the quantize specs, the one target that knows both sides, so mxv::check itself names
// nothing of the reference.
#pragma once

#include "mxv/check/check.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::check {

CodeKind code_kind(WideType type);
InputKind input_kind(WideType type);

}  // namespace mxv::check
