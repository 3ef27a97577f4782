// The check library's names for the reference's wide element types (WideType, vocabulary.h): the
// code kind a report decodes a wide tensor with, the input kind a Context shows and the input bits
// it holds. They live beside the quantize specs, the one target that knows both sides, so
// mxv::check itself names nothing of the reference.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/reference/vocabulary.h"

namespace mxv::check {

CodeKind code_kind(WideType type);
InputKind input_kind(WideType type);
/// Context::input_bits of little-endian `type` values: one word per element, bf16 / fp16 in the
/// low 16 bits.
std::vector<std::uint32_t> input_bits(WideType type, std::span<const std::uint8_t> bytes);

}  // namespace mxv::check
