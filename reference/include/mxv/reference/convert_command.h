// The logic of `mxv convert` (issue 2, "The mxv convert verb"): raw little-endian files of fp32,
// bf16 or fp16 values -> one code per byte (and back with decode), and the exhaustive fp32 sweep
// that prints one SHA-256 per chunk of 2^24 bit patterns. tools/ only parses the options
// (convert_cli.h); everything here throws std::invalid_argument / std::runtime_error with a
// message naming the option or file, and never leaves a partial output file behind.
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
  std::string dialect = "cuda";           // cuda | ml_dtypes | torch
  std::string type = "fp32";              // fp32 | bf16 | fp16: input (encode) / output (decode)
  bool decode = false;                    // codes in, `type` values out
  std::string input;                      // file paths (not with --sweep)
  std::string output;
  std::string sweep;                      // "fp32": all 2^32 fp32 patterns (needs digest)
  bool digest = false;
  std::string chunks = "0:256";           // LO:HI, chunks LO..HI-1 of 2^24 patterns each
  bool progress = false;                  // progress on stderr (the CLI sets it for a terminal)
};

/// Runs the request; digest lines go to `out` ("k <sha256 hex>\n" per chunk). Throws on error.
void run_convert(const ConvertRequest& request, std::ostream& out);

/// SHA-256 of `bytes` (OpenSSL libcrypto), as 64 lowercase hex characters.
std::string sha256_hex(std::span<const std::uint8_t> bytes);

/// The sweep's chunk size: 2^24 fp32 bit patterns, one code byte each.
inline constexpr std::uint32_t kSweepChunk = 1u << 24;

}  // namespace mxv
