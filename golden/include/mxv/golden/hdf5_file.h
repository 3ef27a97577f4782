// A small, strict layer over the HDF5 C++ API (Debian libhdf5-dev) for mxv's golden files and for
// anything else that stores byte-exact tensors in HDF5 (library captures under golden/libraries/).
// The schema that golden files follow on top of it is docs/golden-files.md.
//
//   mxv::golden::H5Writer w("out.h5");                       // written to a fresh .out.h5.mxv-XXXXXX, renamed on commit()
//   w.set_attr("/", "schema_version", std::int64_t{1});
//   w.add_group("/cases/x");
//   w.add_dataset("/cases/x/in", H5Storage::kF32, {rows, cols}, bytes);   // little-endian bytes
//   w.commit();                                             // nothing at out.h5 until this succeeds
//
//   mxv::golden::H5Reader r("out.h5");                       // throws GoldenFileError, never crashes
//   std::vector<std::uint8_t> b = r.read_dataset("/cases/x/in");   // checks the stored dtype
//
// What it guarantees:
// - Every failure is a GoldenFileError naming the file, the object path ("where") and the problem;
//   HDF5's own error-stack printing is switched off so that nothing else reaches the terminal.
// - Files are deterministic: object modification times are not recorded (H5Pset_obj_track_times
//   off), datasets are contiguous and uncompressed, so the same calls give the same bytes and a
//   dataset's bytes sit at one offset of the file (h5py's `dset.id.get_offset()`). The reader
//   also reads gzip-compressed datasets (h5py writes the library captures that way).
// - Writes are atomic: a failed or abandoned writer leaves any existing file untouched.
// - Datasets hold one of five storage types (H5Storage); readers get exactly the stored bytes,
//   little-endian, row-major, and the shape.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::golden {

/// A problem with a file, in one line: "<file>: <where>: <problem>" (where may be empty).
class GoldenFileError : public std::runtime_error {
 public:
  GoldenFileError(std::string file, std::string where, std::string problem);
  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string file_, where_, problem_;
};

/// The HDF5 type of a dataset's elements (all little-endian).
enum class H5Storage : std::uint8_t {
  kU8,   ///< codes (E2M1 pairs, E4M3, UE4M3, E8M0)
  kU16,  ///< bf16 / fp16 bit patterns
  kU32,  ///< fp32 bit patterns kept as integers (library captures: NaN payloads survive any reader)
  kF32,  ///< IEEE binary32
  kI64,  ///< counts, indices
};
/// "uint8", "uint16", "uint32", "float32", "int64" (numpy's names).
std::string_view to_string(H5Storage s);
std::size_t element_bytes(H5Storage s);

/// Creates a new HDF5 file. Paths are absolute HDF5 paths ("/cases/a/b"); parents must exist. The
/// file is written beside its target and renamed over it by commit(); the target obeys the command
/// line's output rules (io::output_target): an existing folder, device or pipe is refused with
/// GoldenFileError, and through a symbolic link the link's target is written.
class H5Writer {
 public:
  explicit H5Writer(std::string path);
  ~H5Writer();  // without commit(): the temporary file is removed, `path` is untouched
  H5Writer(const H5Writer&) = delete;
  H5Writer& operator=(const H5Writer&) = delete;

  void add_group(const std::string& path);
  /// `bytes` must hold product(shape) * element_bytes(storage) bytes (throws std::invalid_argument).
  void add_dataset(const std::string& path, H5Storage storage, std::span<const std::uint64_t> shape,
                   std::span<const std::uint8_t> bytes);
  void set_attr(const std::string& object, const std::string& name, std::string_view value);
  void set_attr(const std::string& object, const std::string& name, std::int64_t value);
  void set_attr(const std::string& object, const std::string& name, double value);
  void set_attr(const std::string& object, const std::string& name, std::span<const std::int64_t> values);
  /// Every attribute set on `object` so far, one "name=value" line each in name order, values in
  /// attr_text's canonical form: what a digest over an object's attributes is computed from.
  std::string attrs_text(const std::string& object) const;
  /// Closes the file and moves it into place.
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads an HDF5 file. The constructor rejects a missing file, a directory, and a file that is not
/// HDF5 or cannot be opened (truncated), each with its own message.
class H5Reader {
 public:
  explicit H5Reader(std::string path);
  ~H5Reader();
  H5Reader(const H5Reader&) = delete;
  H5Reader& operator=(const H5Reader&) = delete;

  const std::string& path() const;
  bool exists(const std::string& object) const;
  bool is_group(const std::string& object) const;
  /// Names of a group's members, sorted (HDF5 name order).
  std::vector<std::string> children(const std::string& group) const;

  bool has_attr(const std::string& object, const std::string& name) const;
  /// Attribute readers: throw GoldenFileError when missing or of another type.
  std::string attr_string(const std::string& object, const std::string& name) const;
  std::int64_t attr_int(const std::string& object, const std::string& name) const;
  double attr_double(const std::string& object, const std::string& name) const;
  std::vector<std::int64_t> attr_ints(const std::string& object, const std::string& name) const;
  /// Every attribute name of an object, sorted.
  std::vector<std::string> attr_names(const std::string& object) const;
  /// An attribute in a canonical, type-tagged text form: "s:text", "i:-7", "f:0x1.99999ap-4"
  /// (exact), "l:1,127,128" (an integer list).
  std::string attr_text(const std::string& object, const std::string& name) const;
  /// H5Writer::attrs_text of the attributes as stored, leaving out `except`.
  std::string attrs_text(const std::string& object, const std::string& except) const;

  struct DatasetInfo {
    H5Storage storage = H5Storage::kU8;
    std::vector<std::uint64_t> shape;
    std::uint64_t elements() const;
  };
  /// Throws GoldenFileError when the dataset is missing or its type is none of H5Storage.
  DatasetInfo dataset_info(const std::string& path) const;
  /// The dataset's bytes (little-endian, row-major).
  std::vector<std::uint8_t> read_dataset(const std::string& path) const;
  /// Byte offset of a contiguous dataset's data in the file (tests use it to damage one byte).
  std::uint64_t dataset_file_offset(const std::string& path) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mxv::golden
