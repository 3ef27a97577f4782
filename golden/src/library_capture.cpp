// Reader of the library captures (docs/conformance.md, "Capture files"), on the HDF5 C API.
// Every HDF5 handle is owned by a Handle, so an exception thrown half-way closes what was opened.
#include "mxv/golden/library_capture.h"

#include <hdf5.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace mxv::golden {
namespace {

// An owned hid_t and the function that closes it.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& object, const std::string& why) {
  throw std::runtime_error("capture " + file.string() + ": " + object + ": " + why);
}

// Silences HDF5's own error printing for the lifetime of the reader call: every failure is
// reported through fail() with the file and object named instead.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

bool has_attribute(hid_t object, const char* name) { return H5Aexists(object, name) > 0; }

std::string read_string_attribute(const std::filesystem::path& file, hid_t object, const std::string& where,
                                  const char* name) {
  Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) fail(file, where, std::string("missing attribute '") + name + "'");
  Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING) fail(file, where, std::string("attribute '") + name + "' is not a string");
  if (H5Tis_variable_str(type.get()) > 0) {
    Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), H5T_VARIABLE);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    char* text = nullptr;
    if (H5Aread(attr.get(), mem.get(), &text) < 0 || text == nullptr) {
      fail(file, where, std::string("cannot read attribute '") + name + "'");
    }
    std::string out(text);
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  std::string out(size, '\0');
  if (H5Aread(attr.get(), type.get(), out.data()) < 0) fail(file, where, std::string("cannot read '") + name + "'");
  out.resize(std::min(out.size(), out.find('\0')));
  return out;
}

int read_int_attribute(const std::filesystem::path& file, hid_t object, const std::string& where, const char* name) {
  Handle attr(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
  if (!attr.ok()) fail(file, where, std::string("missing attribute '") + name + "'");
  int value = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT, &value) < 0) fail(file, where, std::string("attribute '") + name + "' is not an int");
  return value;
}

// Reads dataset `name` of `parent` as T (uint8 or uint32); the stored type must be the same
// unsigned integer size. Rank 1 gives cols = 1.
template <class T>
Array2d<T> read_array(const std::filesystem::path& file, hid_t parent, const std::string& where, const std::string& name) {
  const std::string object = where + "/" + name;
  Handle ds(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) fail(file, object, "missing dataset");
  Handle type(H5Dget_type(ds.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_INTEGER || H5Tget_size(type.get()) != sizeof(T) ||
      H5Tget_sign(type.get()) != H5T_SGN_NONE) {
    fail(file, object, "expected an unsigned " + std::to_string(8 * sizeof(T)) + "-bit dataset");
  }
  Handle space(H5Dget_space(ds.get()), H5Sclose);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 2) fail(file, object, "expected rank 1 or 2, got " + std::to_string(rank));
  hsize_t dims[2] = {0, 1};
  H5Sget_simple_extent_dims(space.get(), dims, nullptr);
  Array2d<T> a;
  a.rows = static_cast<std::size_t>(dims[0]);
  a.cols = rank == 2 ? static_cast<std::size_t>(dims[1]) : 1;
  a.data.resize(a.rows * a.cols);
  const hid_t mem = sizeof(T) == 1 ? H5T_NATIVE_UINT8 : H5T_NATIVE_UINT32;
  if (!a.data.empty() && H5Dread(ds.get(), mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()) < 0) {
    fail(file, object, "cannot read the data (a filter missing from this libhdf5?)");
  }
  return a;
}

bool has_link(hid_t parent, const char* name) { return H5Lexists(parent, name, H5P_DEFAULT) > 0; }

std::vector<std::string> child_names(hid_t group) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
    static_cast<std::vector<std::string>*>(out)->emplace_back(name);
    return 0;
  };
  H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names);
  return names;
}

CaptureGroup read_group(const std::filesystem::path& file, hid_t root, hid_t g, const std::string& where) {
  CaptureGroup c;
  c.path = where;
  c.function = read_string_attribute(file, g, where, "function");
  c.mode = read_string_attribute(file, g, where, "mode");
  c.element = read_string_attribute(file, g, where, "element");
  c.block_size = read_int_attribute(file, g, where, "block_size");
  c.preset = read_string_attribute(file, g, where, "preset");
  if (has_attribute(g, "error")) c.error = read_string_attribute(file, g, where, "error");
  if (has_attribute(g, "unclaimed")) c.unclaimed = read_string_attribute(file, g, where, "unclaimed");
  if (has_attribute(g, "convert")) c.convert = read_string_attribute(file, g, where, "convert");
  const std::string input_path = read_string_attribute(file, g, where, "input");
  const auto slash = input_path.rfind('/');
  if (slash == std::string::npos || slash == 0) fail(file, where, "input path '" + input_path + "' is not /group/name");
  Handle input_parent(H5Gopen2(root, input_path.substr(0, slash).c_str(), H5P_DEFAULT), H5Gclose);
  if (!input_parent.ok()) fail(file, where, "input path '" + input_path + "' does not exist");
  c.input = read_array<std::uint32_t>(file, input_parent.get(), input_path.substr(0, slash), input_path.substr(slash + 1));
  if (has_link(g, "codes")) c.codes = read_array<std::uint8_t>(file, g, where, "codes");
  if (has_link(g, "scales")) c.scales = read_array<std::uint8_t>(file, g, where, "scales");
  if (has_link(g, "global_scale")) {
    const auto gs = read_array<std::uint32_t>(file, g, where, "global_scale");
    if (gs.data.size() != 1) fail(file, where + "/global_scale", "expected one value");
    c.global_scale = gs.data[0];
  }
  if (has_link(g, "dequantized")) c.dequantized = read_array<std::uint32_t>(file, g, where, "dequantized");
  return c;
}

}  // namespace

Capture read_capture(const std::filesystem::path& file) {
  const QuietErrors quiet;
  if (!std::filesystem::exists(file)) fail(file, "/", "file does not exist");
  Handle f(H5Fopen(file.string().c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) fail(file, "/", "not an HDF5 file (or unreadable)");
  Capture cap;
  cap.file = file;
  for (const char* key : {"library", "library_version", "torch_version", "device", "date", "command"}) {
    cap.provenance[key] = read_string_attribute(file, f.get(), "/", key);
  }
  for (const std::string& fm : child_names(f.get())) {
    if (fm == "inputs") continue;
    Handle fm_group(H5Gopen2(f.get(), fm.c_str(), H5P_DEFAULT), H5Gclose);
    if (!fm_group.ok()) fail(file, "/" + fm, "not a group");
    for (const std::string& cs : child_names(fm_group.get())) {
      const std::string where = "/" + fm + "/" + cs;
      Handle g(H5Gopen2(fm_group.get(), cs.c_str(), H5P_DEFAULT), H5Gclose);
      if (!g.ok()) fail(file, where, "not a group");
      cap.groups.push_back(read_group(file, f.get(), g.get(), where));
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
