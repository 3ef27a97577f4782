// The check library: byte-exact comparison of a model's output with a candidate's, where every
// difference is explained (docs/design.md section 3.6, "A mismatch is explained"; docs/semantics.md
// sections 1-5 for the formats, packing and layouts it understands).
//
//   mxv::check::OutputSpec spec = mxv::check::OutputSpec::scales("sf", mxv::check::CodeKind::kUE4M3,
//                                     rows, k_blocks, mxv::check::Layout::kSwizzled128x4);
//   mxv::check::Report r = mxv::check::compare(spec, model_bytes, kernel_bytes, context, options);
//   EXPECT_TRUE(r.ok()) << r;          // the report's text names the first mismatches and why
//
// Nothing here forgives a difference: ok() is true only when every byte (payload, padding and
// guard bytes) is what the model says. Classification only explains; it never excuses.
//
// Classes and their precedence (the first rule that fits wins; see classify.cpp):
//   1 out-of-bounds       a guard byte around the output changed (positional)
//   2 nonzero-padding     a layout padding slot is not zero (positional)
//   3 never-written       the sentinel survived in a data slot
//   4 nibble-swap         an E2M1 byte holds the expected nibbles exchanged
//   5 layout-permutation  the actual value is the expected value of another mismatching element,
//                         and the buffer as a whole supports that (see classify.cpp)
//   6 nan-policy          one side is NaN / a NaN code, two NaN codes differ, or the input or the
//                         block amax was NaN
//   7 sign-of-zero        both values are zero, the signs differ
//   8 tie-flip            adjacent codes, pre-rounding value exactly on their midpoint
//   9 boundary-flip       adjacent codes, pre-rounding value within Options::boundary_ulps of it
//  10 scale-off-binades / scale-off-codes   E8M0 codes differ by k; UE4M3 codes differ by k;
//                         wide floats differ by a factor of exactly 2^k
//  11 other               none of the above
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::check {

// The check library's own vocabulary (CodeKind, Layout, InputKind): it includes nothing from the
// code it checks, not even the shared vocabulary.h, and check/quantize_specs is the one bridge
// from mxv::WideType and mxv::ScaleLayout to these names (docs/design.md section 3.7).

/// What one stored element is. kE2M1x2: packed E2M1, element 2i in bits [3:0] of byte i,
/// element 2i+1 in bits [7:4]. Wide floats are little-endian.
enum class CodeKind : std::uint8_t { kE2M1x2, kE4M3, kUE4M3, kE8M0, kBf16, kFp16, kFp32 };

/// How [batch, row, col] map to storage (docs/semantics.md section 5).
enum class Layout : std::uint8_t {
  kRowMajor,       // [batch][row (padded to row_align)][col]; packed E2M1 rows are ceil(cols/2) bytes
  kSwizzled128x4,  // cuBLAS/CUTLASS 128x4 scale tiles per batch, rows padded to 128, cols to 4
};

/// Every class of difference, in precedence order (highest first). One-line meanings: describe().
enum class MismatchClass : std::uint8_t {
  kOutOfBounds,
  kNonzeroPadding,
  kNeverWritten,
  kNibbleSwap,
  kLayoutPermutation,
  kNanPolicy,
  kSignOfZero,
  kTieFlip,
  kBoundaryFlip,
  kScaleOffBinades,
  kScaleOffCodes,
  kOther,
};
inline constexpr std::size_t kMismatchClassCount = 12;

/// Short stable name ("tie-flip"), used in text and JSON.
std::string_view to_string(MismatchClass c);
/// One line saying what the class means.
std::string_view describe(MismatchClass c);
std::string_view to_string(CodeKind k);
std::string_view to_string(Layout l);

/// The shape and layout of one output buffer, so that a byte offset becomes coordinates.
struct OutputSpec {
  std::string name = "output";
  CodeKind kind = CodeKind::kFp32;
  Layout layout = Layout::kRowMajor;
  std::size_t batches = 1;  // batches / experts / groups
  std::size_t rows = 1;     // rows per batch (ignored when group_rows is set)
  std::size_t cols = 1;     // elements per row: K for packed E2M1, blocks for scales
  // Grouped (MoE) rows: rows of each batch; when non-empty it must hold `batches` counts.
  std::vector<std::size_t> group_rows;
  // Row-major only: each batch's rows are padded to a multiple of this (padding rows are zero).
  std::size_t row_align = 1;
  // Names of the three coordinates in reports, e.g. {"expert", "n", "k"}.
  std::array<std::string, 3> axes = {"batch", "row", "col"};

  /// Packed E2M1 activations or weights [batches][rows][cols/2].
  static OutputSpec packed_e2m1(std::string name, std::size_t rows, std::size_t cols,
                                std::size_t batches = 1);
  /// Block scales [batches][rows][blocks] in `layout`; kind is kE4M3, kUE4M3 or kE8M0.
  static OutputSpec scales(std::string name, CodeKind kind, std::size_t rows, std::size_t blocks,
                           Layout layout, std::size_t batches = 1);
  /// A dense tensor [batches][rows][cols] of codes or wide floats.
  static OutputSpec tensor(std::string name, CodeKind kind, std::size_t rows, std::size_t cols,
                           std::size_t batches = 1);
  /// One fp32 scalar (global scale, amax).
  static OutputSpec scalar(std::string name);

  std::size_t rows_of(std::size_t batch) const { return group_rows.empty() ? rows : group_rows[batch]; }
};

/// Bytes the output occupies (padding included, guard bytes excluded). Validates `spec`.
std::size_t storage_bytes(const OutputSpec& spec);
/// Logical elements (unpadded): sum over batches of rows * cols. Validates `spec`.
std::size_t element_count(const OutputSpec& spec);

/// Kind of the raw input bits in Context::input_bits (shown in reports; NaN inputs explain).
enum class InputKind : std::uint8_t { kNone, kFp32, kBf16, kFp16 };

/// Optional context from the model, so the report can say WHY. Every span is either empty or
/// exactly as long as stated; all are indexed in logical order (batch, row, col; no padding).
/// For an element output (E2M1/E4M3 codes, dequantized floats) pre_rounding is the fp32 value
/// that was converted (x * enc); for a scale output it is the fp32 scale before conversion.
struct Context {
  InputKind input_kind = InputKind::kNone;
  std::span<const std::uint32_t> input_bits;  // one per element (bf16/fp16 in the low 16 bits)
  std::span<const float> pre_rounding;        // one per element
  // Per-block context: blocks run along cols, block_size elements each (1 for a scale output,
  // whose elements are the blocks); per row there are ceil(cols / block_size) blocks.
  std::size_t block_size = 0;
  std::span<const float> block_amax;   // one per block
  std::span<const float> block_scale;  // one per block: the fp32 scale before conversion
};

/// How to compare.
struct Options {
  // Bytes of guard (red zone) before and after the output inside `actual`, and their fill.
  std::size_t guard_before = 0;
  std::size_t guard_after = 0;
  std::uint8_t guard_fill = 0xCD;
  // The byte the candidate's output was filled with before the run ("never written").
  std::optional<std::uint8_t> sentinel;
  // Boundary flip: the pre-rounding value lies within this many fp32 ulps of the midpoint. Each
  // fp32 rounding moves a value by at most half an ulp, so 4 covers another order of the few
  // multiplications in an NVFP4 recipe (docs/semantics.md section 4); a test that names another
  // operation (rcp.approx: 1 ulp; ex2.approx) states its own bound.
  std::uint32_t boundary_ulps = 4;
  // How many mismatches the report lists in full.
  std::size_t max_listed = 16;
};

/// Where a mismatch sits.
enum class Region : std::uint8_t { kGuardBefore, kData, kPadding, kGuardAfter };
/// "guard-before" / "data" / "padding" / "guard-after", as reports and the Python module print it.
std::string_view to_string(Region r);

/// One explained difference.
struct Mismatch {
  MismatchClass cls = MismatchClass::kOther;
  Region region = Region::kData;
  std::int64_t byte_offset = 0;  // from the output's first byte; negative in the guard before
  int nibble = -1;               // packed E2M1: 0 low, 1 high; -1 otherwise
  std::array<std::size_t, 3> coord{};  // batch, row, col (data only)
  std::uint32_t expected = 0;    // the code / bits (nibble, byte, 16 or 32 bits)
  std::uint32_t actual = 0;
  int k = 0;  // scale-off: actual - expected in binades or codes; boundary-flip: ulps from midpoint
  // layout-permutation: where the actual value was expected
  std::optional<std::array<std::size_t, 3>> found_at;
  std::int64_t found_byte_offset = -1;
  // Context of this element, when the caller gave it.
  std::optional<std::uint32_t> input_bits;
  std::optional<float> pre_rounding;
  std::optional<float> block_amax;
  std::optional<float> block_scale;
};

/// The outcome of one comparison.
struct Report {
  OutputSpec spec;
  InputKind input_kind = InputKind::kNone;
  std::size_t bytes_compared = 0;     // payload + padding + guard bytes
  std::size_t elements_compared = 0;  // logical elements
  std::size_t mismatch_count = 0;     // explained differences (elements, padding slots, guard bytes)
  std::array<std::size_t, kMismatchClassCount> counts{};
  std::vector<Mismatch> listed;       // the first Options::max_listed, in storage order

  bool ok() const { return mismatch_count == 0; }
  std::size_t count(MismatchClass c) const { return counts[static_cast<std::size_t>(c)]; }
  /// One line: name, verdict, class counts, the first mismatch. A GoogleTest failure message.
  std::string summary() const;
  /// The readable report: summary, class counts with meanings, the listed mismatches.
  std::string text() const;
  /// Machine-readable summary (one JSON object).
  std::string json() const;
};

/// Writes report.text().
std::ostream& operator<<(std::ostream& os, const Report& report);

/// Compare `actual` (guard_before + storage_bytes(spec) + guard_after bytes) with `expected`
/// (storage_bytes(spec) bytes, the model's output). Throws std::invalid_argument naming the
/// argument when a size, the spec or a context span is inconsistent. Cost: one memcmp when the
/// buffers agree; otherwise O(storage) time and about 40 bytes per differing element.
Report compare(const OutputSpec& spec, std::span<const std::uint8_t> expected,
               std::span<const std::uint8_t> actual, const Context& context = {},
               const Options& options = {});

/// View any trivially copyable array as bytes (for compare()).
template <class T>
std::span<const std::uint8_t> bytes_of(std::span<const T> values) {
  return {reinterpret_cast<const std::uint8_t*>(values.data()), values.size_bytes()};
}
template <class T>
std::span<const std::uint8_t> bytes_of(const std::vector<T>& values) {
  return bytes_of(std::span<const T>(values));
}

/// Raw bits of fp32 inputs, for Context::input_bits.
std::vector<std::uint32_t> input_bits_of(std::span<const float> values);
/// Raw bits of bf16 / fp16 inputs (already bits), widened for Context::input_bits.
std::vector<std::uint32_t> input_bits_of(std::span<const std::uint16_t> bits);

}  // namespace mxv::check
