// What a stored code means, for the check library: its exact value, NaN and zero, and its rank in
// value order (so "adjacent codes" and "k codes apart" are defined). Formats per docs/semantics.md
// section 1 (E2M1, E4M3, UE4M3, E8M0) and IEEE 754 binary16/32 and bfloat16.
//
// Decoding here is deliberately a second, independent implementation (a generic sign/exponent/
// mantissa formula, not the reference's tables): the checker must not share code with what it
// checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mxv/check/check.h"

namespace mxv::check {

/// Exact value of a code (double holds every value of every kind exactly); NaN for NaN codes.
/// E8M0 0x00 is 2^-127 (docs/semantics.md section 1), never 0.
double code_value(CodeKind kind, std::uint32_t code);
bool is_nan_code(CodeKind kind, std::uint32_t code);
/// +0 or -0 (E8M0 has no zero).
bool is_zero_code(CodeKind kind, std::uint32_t code);
/// Position in value order, +0 and -0 sharing rank 0 (E8M0 and UE4M3: the code itself). Two
/// non-NaN codes are adjacent when their ranks differ by 1. nullopt for NaN codes.
std::optional<std::int64_t> value_rank(CodeKind kind, std::uint32_t code);
/// True when both codes are finite and no value of the kind lies strictly between them.
bool adjacent(CodeKind kind, std::uint32_t a, std::uint32_t b);

/// "0x3 (+1.5)", "0x7c (2^-3)", "0x7f (NaN)": the code in hex with its value.
std::string format_code(CodeKind kind, std::uint32_t code);

/// Value of raw input bits of `kind` (NaN for kNone).
double input_value(InputKind kind, std::uint32_t bits);
/// "0x3f800000 (1)" for an fp32 input; "0x3f80 (1)" for bf16.
std::string format_input(InputKind kind, std::uint32_t bits);
/// A float printed exactly enough to round-trip ("%.9g"), NaN and Inf spelled out.
std::string format_float(double v);

/// Distance between two fp32 values in units in the last place (+0 and -0 are 0 apart).
std::uint64_t fp32_ulp_distance(float a, float b);

}  // namespace mxv::check
