// Reader of the library captures (docs/conformance.md, "Capture files"), on mxv's HDF5 layer
// (hdf5_file.h): every failure is a GoldenFileError naming the file and the object.
#include "mxv/golden/library_capture.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "mxv/golden/hdf5_file.h"

namespace mxv::golden {
namespace {

[[noreturn]] void fail(const H5Reader& r, const std::string& object, const std::string& why) {
  throw GoldenFileError(r.path(), object, why);
}

template <class T>
constexpr H5Storage kStorage = sizeof(T) == 1 ? H5Storage::kU8 : H5Storage::kU32;

// Dataset `path` as T (uint8 or uint32, stored as that unsigned type); rank 1 gives cols = 1.
template <class T>
Array2d<T> read_array(const H5Reader& r, const std::string& path) {
  const H5Reader::DatasetInfo info = r.dataset_info(path);
  if (info.storage != kStorage<T>) {
    fail(r, path, "expected an unsigned " + std::to_string(8 * sizeof(T)) + "-bit dataset, got " +
                      std::string(to_string(info.storage)));
  }
  if (info.shape.empty() || info.shape.size() > 2) {
    fail(r, path, "expected rank 1 or 2, got " + std::to_string(info.shape.size()));
  }
  Array2d<T> a;
  a.rows = static_cast<std::size_t>(info.shape[0]);
  a.cols = info.shape.size() == 2 ? static_cast<std::size_t>(info.shape[1]) : 1;
  const std::vector<std::uint8_t> bytes = r.read_dataset(path);
  a.data.resize(a.rows * a.cols);
  std::memcpy(a.data.data(), bytes.data(), std::min(bytes.size(), a.data.size() * sizeof(T)));
  return a;
}

CaptureGroup read_group(const H5Reader& r, const std::string& where) {
  CaptureGroup c;
  c.path = where;
  c.function = r.attr_string(where, "function");
  c.mode = r.attr_string(where, "mode");
  c.element = r.attr_string(where, "element");
  c.block_size = static_cast<int>(r.attr_int(where, "block_size"));
  c.preset = r.attr_string(where, "preset");
  if (r.has_attr(where, "error")) c.error = r.attr_string(where, "error");
  if (r.has_attr(where, "unclaimed")) c.unclaimed = r.attr_string(where, "unclaimed");
  if (r.has_attr(where, "convert")) c.convert = r.attr_string(where, "convert");
  if (r.has_attr(where, "claimed")) c.claimed = r.attr_string(where, "claimed");
  if (r.has_attr(where, "input_dtype")) c.input_dtype = r.attr_string(where, "input_dtype");
  const std::string input = r.attr_string(where, "input");
  if (input.size() < 2 || input.front() != '/' || !r.exists(input)) {
    fail(r, where, "input path '" + input + "' does not exist");
  }
  c.input = read_array<std::uint32_t>(r, input);
  if (r.exists(where + "/codes")) c.codes = read_array<std::uint8_t>(r, where + "/codes");
  if (r.exists(where + "/scales")) c.scales = read_array<std::uint8_t>(r, where + "/scales");
  if (r.exists(where + "/global_scale")) {
    const auto gs = read_array<std::uint32_t>(r, where + "/global_scale");
    if (gs.data.size() != 1) fail(r, where + "/global_scale", "expected one value");
    c.global_scale = gs.data[0];
  }
  if (r.exists(where + "/dequantized")) c.dequantized = read_array<std::uint32_t>(r, where + "/dequantized");
  return c;
}

}  // namespace

Capture read_capture(const std::filesystem::path& file) {
  const H5Reader r(file.string());
  Capture cap;
  cap.file = file;
  for (const char* key : {"library", "library_version", "torch_version", "device", "date", "command"}) {
    cap.provenance[key] = r.attr_string("/", key);
  }
  for (const std::string& fm : r.children("/")) {
    if (fm == "inputs") continue;
    if (!r.is_group("/" + fm)) fail(r, "/" + fm, "not a group");
    for (const std::string& cs : r.children("/" + fm)) {
      const std::string where = "/" + fm + "/" + cs;
      if (!r.is_group(where)) fail(r, where, "not a group");
      cap.groups.push_back(read_group(r, where));
    }
  }
  return cap;
}

std::vector<std::filesystem::path> capture_files(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> out;
  if (!std::filesystem::is_directory(directory)) return out;
  for (const auto& e : std::filesystem::directory_iterator(directory)) {
    if (e.is_regular_file() && e.path().extension() == ".h5") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mxv::golden
