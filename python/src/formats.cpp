// Format encode / decode (reference/include/mxv/reference/float_format.h): every format, rounding,
// saturation and dialect, on whole buffers.
#include <nanobind/stl/string.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "bindings.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/quantize.h"
#include "numpy_buffers.h"

namespace mxv::python {
namespace {

ConvertMode mode_of(const std::string& rounding, const std::string& saturation, const std::string& dialect) {
  return {rounding_by_name(rounding), saturation_by_name(saturation), dialect_by_name(dialect)};
}

std::vector<std::uint16_t> halves_of(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint16_t> out(bytes.size() / 2);
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * 2);
  return out;
}

nb::ndarray<nb::numpy, std::uint8_t> encode_buffer(const Bytes& x, const std::string& input_type,
                                                   const std::string& format, const std::string& rounding,
                                                   const std::string& saturation, const std::string& dialect) {
  const FloatFormat& f = format_by_name(format);
  const ConvertMode mode = mode_of(rounding, saturation, dialect);
  const WideType type = wide_type_by_name(input_type);
  const auto bytes = span_of(x);
  if (bytes.size() % bytes_of(type) != 0)
    throw std::invalid_argument("encode: " + std::to_string(bytes.size()) + " bytes is not a whole number of " +
                                input_type + " values");
  std::vector<std::uint8_t> codes(bytes.size() / bytes_of(type));
  if (type == WideType::kFp32) {
    const auto values = floats_of(bytes, "encode");
    encode(f, std::span<const float>(values), std::span<std::uint8_t>(codes), mode);
  } else {
    const auto bits = halves_of(bytes);
    if (type == WideType::kBf16)
      encode_bf16(f, std::span<const std::uint16_t>(bits), std::span<std::uint8_t>(codes), mode);
    else
      encode_fp16(f, std::span<const std::uint16_t>(bits), std::span<std::uint8_t>(codes), mode);
  }
  const std::size_t n = codes.size();
  return to_numpy(std::move(codes), {n});
}

nb::ndarray<nb::numpy, float> decode_buffer(const Bytes& codes, const std::string& format, const std::string& dialect) {
  std::vector<float> out(codes.size());
  decode(format_by_name(format), span_of(codes), std::span<float>(out), dialect_by_name(dialect));
  const std::size_t n = out.size();
  return to_numpy(std::move(out), {n});
}

// Decoding is exact in fp32; a bf16 / fp16 output is that value rounded once (narrow_from_fp32), as
// a kernel that decodes into a bf16 / fp16 tensor does. Returns the output type's bytes.
nb::ndarray<nb::numpy, std::uint8_t> decode_wide_buffer(const Bytes& codes, const std::string& format,
                                                        const std::string& dialect, const std::string& out_type) {
  const WideType type = wide_type_by_name(out_type);
  const nb::ndarray<nb::numpy, float> values = decode_buffer(codes, format, dialect);
  std::vector<std::uint8_t> out = narrow_from_fp32(type, std::span<const float>(values.data(), values.size()));
  const std::size_t n = out.size();
  return to_numpy(std::move(out), {n});
}

}  // namespace

void bind_formats(nb::module_& m) {
  m.def("encode", &encode_buffer, nb::arg("x"), nb::arg("input_type"), nb::arg("format"), nb::arg("rounding"),
        nb::arg("saturation"), nb::arg("dialect"),
        "Encode raw little-endian fp32 / bf16 / fp16 values to codes of `format` (one byte each).");
  m.def("decode", &decode_buffer, nb::arg("codes"), nb::arg("format"), nb::arg("dialect"),
        "Decode codes of `format` to fp32, exactly.");
  m.def("decode_wide", &decode_wide_buffer, nb::arg("codes"), nb::arg("format"), nb::arg("dialect"),
        nb::arg("out_type"),
        "Decode codes of `format` (one byte each) exactly, then round once to `out_type` (fp32, bf16, fp16); "
        "returns the output's little-endian bytes.");
}

}  // namespace mxv::python
