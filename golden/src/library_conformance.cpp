// A preset held to a library capture (library_conformance.h): the reference's quantize and
// dequantize (quantize.h, dequantize.h) against the library's bytes, every comparison through the
// check library so a difference is classified.
#include "mxv/golden/library_conformance.h"

#include <algorithm>
#include <bit>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/check/quantize_specs.h"
#include "mxv/reference/dequantize.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/quantize.h"

namespace mxv::golden {
namespace {

[[noreturn]] void reject(const CaptureGroup& g, const std::string& why) {
  throw std::invalid_argument("capture group " + g.path + ": " + why);
}

std::vector<float> floats_of(const std::vector<std::uint32_t>& bits) {
  std::vector<float> out(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) out[i] = std::bit_cast<float>(bits[i]);
  return out;
}

check::CodeKind scale_kind(const Recipe& r) {
  if (r.is_mx()) return check::CodeKind::kE8M0;
  return r.scale_decode == ScaleDecode::kSignedE4m3 ? check::CodeKind::kE4M3 : check::CodeKind::kUE4M3;
}

// The reference's element rows widened to the library's row width (the extra bytes zero).
std::vector<std::uint8_t> widen_rows(const std::vector<std::uint8_t>& rows_in, std::size_t rows, std::size_t from,
                                     std::size_t to) {
  std::vector<std::uint8_t> out(rows * to, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < from; ++c) out[r * to + c] = rows_in[r * from + c];
  }
  return out;
}

// The library's rows cut to `to` bytes (for dequantizing them with the reference).
std::vector<std::uint8_t> crop_rows(const std::vector<std::uint8_t>& rows_in, std::size_t rows, std::size_t from,
                                    std::size_t to) {
  std::vector<std::uint8_t> out(rows * to);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < to; ++c) out[r * to + c] = rows_in[r * from + c];
  }
  return out;
}

// The fields of `text` between the separators `sep` ("a,b" -> {"a", "b"}; "" -> {""}).
std::vector<std::string> fields_of(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t at = text.find(sep);; at = text.find(sep, start)) {
    out.push_back(text.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

}  // namespace

bool GroupVerdict::ok() const { return mismatches() == 0; }

std::size_t GroupVerdict::mismatches() const {
  std::size_t n = 0;
  for (const auto& r : reports) n += r.mismatch_count;
  return n;
}

std::string GroupVerdict::text() const {
  std::ostringstream os;
  for (const auto& r : reports) {
    if (!r.ok()) os << path << " held to " << preset << ":\n" << r.text() << "\n";
  }
  return os.str();
}

GroupVerdict check_group(const CaptureGroup& g, const Recipe& recipe) {
  if (g.error) reject(g, "the library refused this input (" + *g.error + "); there is nothing to compare");
  if (g.block_size != recipe.block_size) {
    reject(g, "block size " + std::to_string(g.block_size) + " but recipe '" + std::string(recipe.name) + "' has " +
                  std::to_string(recipe.block_size));
  }
  if (g.input_dtype) {
    if (*g.input_dtype != "bfloat16") reject(g, "input_dtype '" + *g.input_dtype + "' is not bfloat16");
    // The library quantized bf16 values; the dataset must hold them exactly (low 16 bits zero).
    for (const std::uint32_t bits : g.input.data) {
      if ((bits & 0xFFFFu) != 0) reject(g, "input_dtype bfloat16 but an input is not a bf16 value");
    }
  }
  GroupVerdict v;
  v.path = g.path;
  v.preset = std::string(recipe.name);
  const std::size_t rows = g.input.rows;
  const std::size_t cols = g.input.cols;
  const std::vector<float> x = floats_of(g.input.data);
  const std::vector<std::uint32_t> input_bits = g.input.data;
  const QuantizedActivations q =
      quantize_activations(recipe, x, static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols));
  const auto row_bytes = static_cast<std::size_t>(element_row_bytes(recipe, static_cast<std::int64_t>(cols)));
  const auto blocks = static_cast<std::size_t>(q.scale_cols);
  v.elements = rows * cols;
  const bool e2m1 = recipe.element == ElementFormat::kFp4E2M1;

  // A group that claims only some of its outputs (attribute `claimed`) is compared on those. Each
  // name it lists must be an output the group holds: a misspelt or missing one would otherwise
  // leave the group compared on nothing, and passing.
  const std::vector<std::string> claimed = g.claimed ? fields_of(*g.claimed, ',') : std::vector<std::string>{};
  const auto holds = [&g](const std::string& output) {
    if (output == "codes") return g.codes.has_value();
    if (output == "scales") return g.scales.has_value();
    if (output == "global_scale") return g.global_scale.has_value();
    if (output == "dequantized") return g.dequantized.has_value();
    reject(g, "claimed names '" + output + "', which is not an output (codes, scales, global_scale, dequantized)");
  };
  for (const std::string& output : claimed) {
    if (!holds(output)) reject(g, "claimed names '" + output + "', which the group does not hold");
  }
  auto claims = [&](const std::string& output) {
    return !g.claimed || std::find(claimed.begin(), claimed.end(), output) != claimed.end();
  };
  if (g.codes && claims("codes")) {
    const auto& lib = *g.codes;
    if (lib.rows != rows || lib.cols < row_bytes) {
      reject(g, "codes are [" + std::to_string(lib.rows) + ", " + std::to_string(lib.cols) + "], the input needs [" +
                    std::to_string(rows) + ", >= " + std::to_string(row_bytes) + "]");
    }
    const bool padded = lib.cols != row_bytes;
    const auto spec = e2m1 ? check::OutputSpec::packed_e2m1("codes", rows, lib.cols * 2)
                           : check::OutputSpec::tensor("codes", check::CodeKind::kE4M3, rows, lib.cols);
    const auto expected = padded ? widen_rows(q.elements, rows, row_bytes, lib.cols) : q.elements;
    // Context (pre-rounding values, block amax) only fits the unpadded shape.
    const check::Context ctx = padded ? check::Context{} : check::element_context(recipe, q, input_bits);
    v.reports.push_back(check::compare(spec, expected, lib.data, ctx));
  }
  if (g.scales && claims("scales")) {
    v.blocks = rows * blocks;
    const auto& lib = *g.scales;
    if (lib.rows != rows || lib.cols != blocks) {
      reject(g, "scales are [" + std::to_string(lib.rows) + ", " + std::to_string(lib.cols) + "], the recipe makes [" +
                    std::to_string(rows) + ", " + std::to_string(blocks) + "]");
    }
    const auto spec = check::OutputSpec::scales("scales", scale_kind(recipe), rows, blocks, check::Layout::kRowMajor);
    v.reports.push_back(check::compare(spec, q.scale_codes, lib.data, check::scale_context(q)));
  }
  if (g.global_scale && claims("global_scale")) {
    const std::vector<float> expected = {q.tensor.at(0).s_dec};
    const std::vector<std::uint32_t> actual = {*g.global_scale};
    v.reports.push_back(check::compare(check::OutputSpec::scalar("global_scale"), check::bytes_of(expected),
                                       check::bytes_of(actual)));
  }
  if (g.dequantized && claims("dequantized")) {
    if (!g.codes || !g.scales) reject(g, "dequantized values without the codes and scales they came from");
    const auto& lib = *g.dequantized;
    if (lib.rows != rows || lib.cols != cols) reject(g, "dequantized is not [rows, K] of the input");
    const std::vector<std::uint8_t> codes = crop_rows(g.codes->data, rows, g.codes->cols, row_bytes);
    const std::vector<float> s_dec = {g.global_scale ? std::bit_cast<float>(*g.global_scale) : 1.0f};
    const std::vector<float> expected =
        dequantize_activations(recipe, codes, g.scales->data, static_cast<std::int64_t>(rows),
                               static_cast<std::int64_t>(cols), ScaleLayout::kLinear,
                               GroupedRows::single(static_cast<std::int64_t>(rows)), s_dec);
    const auto spec = check::OutputSpec::tensor("dequantized", check::CodeKind::kFp32, rows, cols);
    v.reports.push_back(check::compare(spec, check::bytes_of(expected), check::bytes_of(lib.data)));
  }
  if (v.reports.empty()) reject(g, "no output to compare (codes, scales, global_scale or dequantized)");
  return v;
}

GroupVerdict check_cast(const CaptureGroup& g, const std::string& convert) {
  if (g.error) reject(g, "the library refused this cast (" + *g.error + "); there is nothing to compare");
  if (!g.codes) reject(g, "a cast group without codes");
  const std::vector<std::string> parts = fields_of(convert, ':');
  if (parts.size() != 4) reject(g, "convert '" + convert + "' is not format:rounding:saturation:dialect");
  const FloatFormat& format = format_by_name(parts[0]);
  const ConvertMode mode{rounding_by_name(parts[1]), saturation_by_name(parts[2]), dialect_by_name(parts[3])};
  const std::size_t rows = g.input.rows;
  const std::size_t cols = g.input.cols;
  if (g.codes->rows != rows || g.codes->cols != cols) reject(g, "codes are not one byte per input");
  std::vector<std::uint8_t> expected(rows * cols);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = encode(format, std::bit_cast<float>(g.input.data[i]), mode);
  GroupVerdict v;
  v.path = g.path;
  v.preset = convert;
  v.elements = rows * cols;
  const check::Context ctx{check::InputKind::kFp32, g.input.data, {}, 0, {}, {}};
  if (format == kE2M1) {
    if (cols % 2 != 0) reject(g, "E2M1 casts are compared packed: K must be even");
    auto pack = [&](const std::vector<std::uint8_t>& codes) {
      std::vector<std::uint8_t> packed(rows * cols / 2);
      for (std::size_t i = 0; i < packed.size(); ++i) {
        packed[i] = static_cast<std::uint8_t>((codes[2 * i] & 0x0Fu) | ((codes[2 * i + 1] & 0x0Fu) << 4));
      }
      return packed;
    };
    for (const std::uint8_t c : g.codes->data) {
      if (c > 0x0F) reject(g, "an E2M1 code above 0xF");
    }
    v.reports.push_back(check::compare(check::OutputSpec::packed_e2m1("codes", rows, cols), pack(expected),
                                       pack(g.codes->data), ctx));
  } else {
    const check::CodeKind kind = format == kE8M0 ? check::CodeKind::kE8M0 : check::CodeKind::kE4M3;
    v.reports.push_back(check::compare(check::OutputSpec::tensor("codes", kind, rows, cols), expected, g.codes->data, ctx));
  }
  return v;
}

}  // namespace mxv::golden
