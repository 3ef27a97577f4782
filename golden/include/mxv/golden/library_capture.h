// Library captures: what a third-party quantizer (torchao, ModelOpt, torch casts, ml_dtypes)
// produced on the adversarial inputs, read from the HDF5 files under golden/libraries/ that
// tools/conformance/ writes. The schema is in docs/conformance.md ("Capture files"); this reader
// knows only that schema (uint8 / uint32 datasets, string and int attributes, two group levels).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxv::golden {

/// A 2-D (or 1-D, cols = 1) dataset of bytes or 32-bit words, row-major.
template <class T>
struct Array2d {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<T> data;
};

/// One (function + mode, input case) group of a capture.
struct CaptureGroup {
  std::string path;      // "/nvfp4_two_level/ties_t1000"
  std::string function;  // the library call
  std::string mode;      // "two_level", "floor", ...
  std::string element;   // "e2m1" / "e4m3" / a cast's target
  int block_size = 0;
  std::string preset;    // the mxv preset claimed to reproduce it; empty: none claimed
  std::optional<std::string> error;  // set when the library refused the input
  std::optional<std::string> unclaimed;  // why no preset claims the group (preset empty)
  std::optional<std::string> convert;    // casts: the mxv conversion claimed ("e4m3:nearest-even:none:torch")
  std::optional<std::string> claimed;  // outputs compared, comma-separated; unset: all of them
  std::optional<std::string> input_dtype;  // "bfloat16": the library got bf16 tensors (input holds them widened)
  Array2d<std::uint32_t> input;      // fp32 bits [rows, K]
  std::optional<Array2d<std::uint8_t>> codes;
  std::optional<Array2d<std::uint8_t>> scales;
  std::optional<std::uint32_t> global_scale;  // fp32 bits
  std::optional<Array2d<std::uint32_t>> dequantized;  // fp32 bits [rows, K]
};

/// A whole capture file: provenance (root attributes) and its groups in path order.
struct Capture {
  std::filesystem::path file;
  std::map<std::string, std::string> provenance;  // library, library_version, torch_version, ...
  std::vector<CaptureGroup> groups;
};

/// Reads a capture. Throws std::runtime_error naming the file and the object when the file is
/// missing, is not HDF5, or breaks the schema (a missing attribute, a dataset of the wrong type
/// or rank, an input path that does not exist).
Capture read_capture(const std::filesystem::path& file);

/// The *.h5 files of a directory, sorted by name (empty when the directory does not exist).
std::vector<std::filesystem::path> capture_files(const std::filesystem::path& directory);

}  // namespace mxv::golden
