// The logic of `mxv convert`: raw little-endian files of fp32, bf16 or fp16 values -> one code
// per byte (and back with decode), and the exhaustive fp32 sweep that prints one SHA-256 per
// chunk of 2^24 bit patterns. tools/ registers the options (docs/cli.md); everything here throws
// std::invalid_argument / std::runtime_error with a message naming the option or file, and never
// leaves a partial output file behind (mxv::io::OutputBatch).
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>

namespace mxv {

/// What `mxv convert` was asked to do, as typed on the command line (validated by run_convert).
struct ConvertRequest {
  std::string format;                     // e2m1 | e4m3 | ue4m3 | e8m0 (required)
  std::optional<std::string> rounding;    // default: the first the mode supports of
                                          // nearest-even, up, toward-zero
  std::optional<std::string> saturation;  // default: finite if supported, else none
  std::optional<std::string> dialect;     // cuda (default) | ml_dtypes | torch
  std::optional<std::string> dtype;       // encode: fp32 (default) | bf16 | fp16 input values
  std::optional<std::string> out_dtype;   // decode: fp32 (default) | bf16 | fp16 output values
  bool decode = false;                    // codes in, --out-dtype values out
  std::string input;                      // file paths (not with --sweep)
  std::string output;
  std::string sweep;                      // "fp32": all 2^32 fp32 patterns (needs digest)
  bool digest = false;
  std::optional<std::string> chunks;      // LO:HI (default 0:256), chunks LO..HI-1 of 2^24 patterns
  bool progress = false;                  // progress on stderr (the CLI sets it for a terminal)
};

/// Runs the request; digest lines go to `out` ("k <sha256 hex>\n" per chunk). Throws on error.
void run_convert(const ConvertRequest& request, std::ostream& out);

/// SHA-256 of `bytes` (OpenSSL libcrypto), as 64 lowercase hex characters.
std::string sha256_hex(std::span<const std::uint8_t> bytes);

/// The sweep's chunk size: 2^24 fp32 bit patterns, one code byte each.
inline constexpr std::uint32_t kSweepChunk = 1u << 24;

}  // namespace mxv
