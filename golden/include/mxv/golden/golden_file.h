// Golden files and candidate files: reading and writing the HDF5 schema of docs/golden-files.md
// (schema version kSchemaVersion) over the HDF5 layer (hdf5_file.h).
//
// A golden file holds cases with their expected outputs; a candidate file (written by
// `mxv golden template`) holds the same inputs and empty output datasets that another
// implementation fills (h5py works) before `mxv golden check --candidate` compares them.
//
// Reading validates everything before returning: the schema name and version, every case's
// attributes, every dataset's presence, HDF5 type and shape against what the case's parameters
// imply (input_specs / output_specs), and every dataset's SHA-256 (candidate outputs excepted:
// the other implementation rewrote them). Any problem is one GoldenFileError naming the file, the
// case and the dataset.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/golden/golden_case.h"

namespace mxv::golden {

inline constexpr std::int64_t kSchemaVersion = 1;
/// The root attribute `schema` of every file mxv writes.
inline constexpr std::string_view kSchemaName = "mxv-golden";
/// The byte candidate output datasets are filled with, so that a slot the other implementation
/// never wrote is reported as never-written (check.h).
inline constexpr std::uint8_t kCandidateFill = 0xCD;

/// Per-file facts: who wrote it, from what, when.
struct Provenance {
  std::string content = "golden";  ///< "golden" or "candidate"
  std::string family;              ///< the catalogue family ("codes", "quantize", ...), or "" for other files
  std::string mxv_version;         ///< the project version (CMake PROJECT_VERSION)
  std::string git_revision;        ///< `git rev-parse HEAD` of the source tree, "+dirty" if modified
  std::string generator;           ///< "mxv golden regen", "mxv golden template", "mxv fuzz", ...
  std::string command_line;        ///< the command that wrote the file
  std::string reference_model;     ///< reference_model_identity() at write time
  std::string created;             ///< UTC, ISO 8601
  std::uint64_t seed = 0;          ///< the input generator's seed

  /// This build's facts, with the given generator, command line and seed; created = now.
  static Provenance current(std::string generator, std::string command_line, std::uint64_t seed);
};

/// SHA-256 (hex) of the reference model's identity: every preset's full recipe (all fields) and
/// the encoder's codes for the midpoints, their neighbours and the special values of every format
/// in every supported conversion mode. It changes exactly when a recipe or an encoding rule does.
std::string reference_model_identity();

/// Writes `cases` (golden: inputs + expected; candidate: inputs + outputs filled with
/// kCandidateFill) atomically: `path` is replaced only when the whole file is written.
void write_golden_file(const std::string& path, const Provenance& provenance, const std::vector<GoldenCase>& cases);

struct GoldenFile {
  std::string path;
  Provenance provenance;
  std::vector<GoldenCase> cases;  ///< in name order; a candidate's outputs are in `expected`
};

/// Reads and validates a whole file (see the file comment). Throws GoldenFileError.
GoldenFile read_golden_file(const std::string& path);

/// Why `mxv golden regen` may not replace the existing file at `path`, or "" when it may: only an
/// mxv golden file is replaced (its schema attribute says so; any schema version, since
/// regenerating is how an old version is updated). Anything else, a user's HDF5 file, a candidate
/// file or a file that is not HDF5, is left alone whatever its name.
std::string why_regen_may_not_replace(const std::string& path);

}  // namespace mxv::golden
