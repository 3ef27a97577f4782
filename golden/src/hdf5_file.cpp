// The HDF5 layer (hdf5_file.h). Everything goes through the HDF5 C++ API; the few settings that API
// does not expose (object time tracking on groups, a dataset's file offset) use the C call on the
// same object id. Every H5::Exception is turned into a GoldenFileError at this file's boundary.
#include "mxv/golden/hdf5_file.h"

#include "mxv/io/enum_names.h"
#include "mxv/io/output_files.h"

#include <H5Cpp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <functional>
#include <map>
#include <system_error>

namespace mxv::golden {

namespace {

/// HDF5 prints its error stack to stderr on every failure unless told not to; the reader reports
/// its own one-line message instead. Done once, before the first call.
void silence_hdf5() {
  static const bool once = [] {
    H5::Exception::dontPrint();
    return true;
  }();
  (void)once;
}

std::string detail(const H5::Exception& e) {
  std::string d = e.getDetailMsg();
  return d.empty() ? std::string("HDF5 error") : d;
}

const H5::PredType& file_type(H5Storage s) {
  switch (s) {
    case H5Storage::kU8: return H5::PredType::STD_U8LE;
    case H5Storage::kU16: return H5::PredType::STD_U16LE;
    case H5Storage::kU32: return H5::PredType::STD_U32LE;
    case H5Storage::kF32: return H5::PredType::IEEE_F32LE;
    case H5Storage::kI64: return H5::PredType::STD_I64LE;
  }
  return H5::PredType::STD_U8LE;
}

/// The in-memory type that reads the file type as little-endian bytes on this (little-endian) host.
const H5::PredType& memory_type(H5Storage s) {
  switch (s) {
    case H5Storage::kU8: return H5::PredType::NATIVE_UINT8;
    case H5Storage::kU16: return H5::PredType::NATIVE_UINT16;
    case H5Storage::kU32: return H5::PredType::NATIVE_UINT32;
    case H5Storage::kF32: return H5::PredType::NATIVE_FLOAT;
    case H5Storage::kI64: return H5::PredType::NATIVE_INT64;
  }
  return H5::PredType::NATIVE_UINT8;
}

/// Which H5Storage a stored type is, if any.
std::optional<H5Storage> storage_of(const H5::DataSet& ds) {
  const H5T_class_t cls = ds.getTypeClass();
  if (cls == H5T_INTEGER) {
    const H5::IntType t = ds.getIntType();
    const bool is_signed = t.getSign() == H5T_SGN_2;
    if (t.getOrder() != H5T_ORDER_LE) return std::nullopt;
    if (!is_signed && t.getSize() == 1) return H5Storage::kU8;
    if (!is_signed && t.getSize() == 2) return H5Storage::kU16;
    if (!is_signed && t.getSize() == 4) return H5Storage::kU32;
    if (is_signed && t.getSize() == 8) return H5Storage::kI64;
    return std::nullopt;
  }
  if (cls == H5T_FLOAT) {
    const H5::FloatType t = ds.getFloatType();
    if (t.getSize() == 4 && t.getOrder() == H5T_ORDER_LE) return H5Storage::kF32;
  }
  return std::nullopt;
}

std::string float_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string list_text(std::span<const std::int64_t> values) {
  std::string t = "l:";
  for (std::size_t i = 0; i < values.size(); ++i) t += (i ? "," : "") + std::to_string(values[i]);
  return t;
}

std::string describe_type(const H5::DataSet& ds) {
  const H5T_class_t cls = ds.getTypeClass();
  const std::size_t size = ds.getDataType().getSize();
  const char* name = cls == H5T_INTEGER ? "integer" : cls == H5T_FLOAT ? "float" : cls == H5T_STRING ? "string" : "compound/other";
  return std::string(name) + " of " + std::to_string(size) + " bytes";
}

}  // namespace

GoldenFileError::GoldenFileError(std::string file, std::string where, std::string problem)
    : std::runtime_error(file + ": " + (where.empty() ? "" : where + ": ") + problem),
      file_(std::move(file)),
      where_(std::move(where)),
      problem_(std::move(problem)) {}

std::string_view to_string(H5Storage s) {
  return io::enum_name(s, {"uint8", "uint16", "uint32", "float32", "int64"});
}

std::size_t element_bytes(H5Storage s) {
  switch (s) {
    case H5Storage::kU8: return 1;
    case H5Storage::kU16: return 2;
    case H5Storage::kU32: return 4;
    case H5Storage::kF32: return 4;
    case H5Storage::kI64: return 8;
  }
  return 1;
}

std::uint64_t H5Reader::DatasetInfo::elements() const {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape) n *= d;
  return n;
}

// ---- writer ----------------------------------------------------------------------------------

struct H5Writer::Impl {
  std::string path;
  std::string target;  // where commit() puts the file: path, or what a symbolic link there names
  std::string tmp;
  std::optional<H5::H5File> file;
  bool committed = false;
  std::map<std::string, std::map<std::string, std::string>> attr_texts;  // object -> name -> text

  template <class F>
  auto guard(const std::string& where, F&& f) {
    try {
      return f();
    } catch (const H5::Exception& e) {
      throw GoldenFileError(path, where, "cannot write: " + detail(e));
    }
  }

  H5::H5Object& object(const std::string& where, std::optional<H5::Group>& g, std::optional<H5::DataSet>& d) {
    if (where == "/") {
      g.emplace(file->openGroup("/"));
      return *g;
    }
    if (file->childObjType(where) == H5O_TYPE_DATASET) {
      d.emplace(file->openDataSet(where));
      return *d;
    }
    g.emplace(file->openGroup(where));
    return *g;
  }

  /// Attribute `name` of `object`, created and written by `create(o)`; `text` is what attrs_text
  /// reports for it.
  template <class Create>
  void set_attr(const std::string& where, const std::string& name, std::string text, Create&& create) {
    guard(where + "@" + name, [&] {
      std::optional<H5::Group> g;
      std::optional<H5::DataSet> d;
      create(object(where, g, d));
    });
    attr_texts[where][name] = std::move(text);
  }
};

H5Writer::H5Writer(std::string path) : impl_(std::make_unique<Impl>()) {
  silence_hdf5();
  impl_->path = std::move(path);
  // The command line's output rules (never a device, a pipe or a folder; through a link its
  // target), then a fresh name beside the target (never `<path>.tmp`, which may be a user's file).
  try {
    impl_->target = io::output_target("output", impl_->path);
    impl_->tmp = io::create_temp_beside(impl_->target);
  } catch (const std::exception& e) {
    throw GoldenFileError(impl_->path, "", e.what());
  }
  impl_->guard("", [&] {
    // The HDF5 1.8 object format: compact groups (link messages instead of a B-tree and heap per
    // group) make a file of many small cases about half the size; HDF5 >= 1.8 (h5py, h5dump)
    // reads it.
    H5::FileAccPropList fapl;
    fapl.setLibverBounds(H5F_LIBVER_V18, H5F_LIBVER_V18);
    impl_->file.emplace(impl_->tmp, H5F_ACC_TRUNC, H5::FileCreatPropList::DEFAULT, fapl);
  });
}

H5Writer::~H5Writer() {
  if (impl_ && !impl_->committed) {
    try {
      if (impl_->file) impl_->file->close();
    } catch (const H5::Exception&) {
    }
    std::error_code ec;
    std::filesystem::remove(impl_->tmp, ec);
    io::forget_temp(impl_->tmp);
  }
}

void H5Writer::add_group(const std::string& path) {
  impl_->guard(path, [&] {
    // Group creation with time tracking off (the C++ API takes no group creation list).
    const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_obj_track_times(gcpl, false);
    const hid_t g = H5Gcreate2(impl_->file->getId(), path.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    if (g < 0) throw H5::GroupIException("H5Gcreate2", "cannot create group");
    H5Gclose(g);
  });
}

void H5Writer::add_dataset(const std::string& path, H5Storage storage, std::span<const std::uint64_t> shape,
                           std::span<const std::uint8_t> bytes) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : shape) n *= d;
  if (n * element_bytes(storage) != bytes.size()) {
    throw std::invalid_argument("H5Writer::add_dataset(" + path + "): " + std::to_string(bytes.size()) +
                                " bytes do not fill the shape (" + std::to_string(n) + " elements of " +
                                std::string(to_string(storage)) + ")");
  }
  impl_->guard(path, [&] {
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    H5::DataSpace space(static_cast<int>(dims.size()), dims.data());
    H5::DSetCreatPropList dcpl;
    H5Pset_obj_track_times(dcpl.getId(), false);
    dcpl.setLayout(H5D_CONTIGUOUS);
    // Allocate storage at creation even when empty, so every dataset has a file offset.
    dcpl.setAllocTime(H5D_ALLOC_TIME_EARLY);
    H5::DataSet ds = impl_->file->createDataSet(path, file_type(storage), space, dcpl);
    if (!bytes.empty()) ds.write(bytes.data(), memory_type(storage));
  });
}

void H5Writer::set_attr(const std::string& object, const std::string& name, std::string_view value) {
  impl_->set_attr(object, name, "s:" + std::string(value), [&](H5::H5Object& o) {
    // Fixed-length, NUL-padded ASCII strings: h5py reads them as bytes, h5dump prints them.
    H5::StrType t(H5::PredType::C_S1, std::max<std::size_t>(value.size(), 1));
    t.setStrpad(H5T_STR_NULLPAD);
    H5::Attribute a = o.createAttribute(name, t, H5::DataSpace(H5S_SCALAR));
    std::string v(value);
    if (v.empty()) v.push_back('\0');
    a.write(t, v.data());
  });
}

void H5Writer::set_attr(const std::string& object, const std::string& name, std::int64_t value) {
  impl_->set_attr(object, name, "i:" + std::to_string(value), [&](H5::H5Object& o) {
    H5::Attribute a = o.createAttribute(name, H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_INT64, &value);
  });
}

void H5Writer::set_attr(const std::string& object, const std::string& name, double value) {
  impl_->set_attr(object, name, "f:" + float_text(value), [&](H5::H5Object& o) {
    H5::Attribute a = o.createAttribute(name, H5::PredType::IEEE_F64LE, H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_DOUBLE, &value);
  });
}

void H5Writer::set_attr(const std::string& object, const std::string& name, std::span<const std::int64_t> values) {
  impl_->set_attr(object, name, list_text(values), [&](H5::H5Object& o) {
    const hsize_t n = values.size();
    // An empty list is stored as a one-dimensional dataspace of size 0 (h5py: an empty array).
    H5::DataSpace space(1, &n);
    H5::Attribute a = o.createAttribute(name, H5::PredType::STD_I64LE, space);
    if (n > 0) a.write(H5::PredType::NATIVE_INT64, values.data());
  });
}

std::string H5Writer::attrs_text(const std::string& object) const {
  std::string t;
  const auto it = impl_->attr_texts.find(object);
  if (it == impl_->attr_texts.end()) return t;
  for (const auto& [name, text] : it->second) t += name + "=" + text + "\n";
  return t;
}

void H5Writer::commit() {
  impl_->guard("", [&] { impl_->file->close(); });
  impl_->file.reset();
  std::error_code ec;
  std::filesystem::rename(impl_->tmp, impl_->target, ec);
  if (ec) throw GoldenFileError(impl_->path, "", "cannot move the written file into place: " + ec.message());
  io::forget_temp(impl_->tmp);
  impl_->committed = true;
}

// ---- reader ----------------------------------------------------------------------------------

struct H5Reader::Impl {
  std::string path;
  std::optional<H5::H5File> file;

  template <class F>
  auto guard(const std::string& where, F&& f) const {
    try {
      return f();
    } catch (const H5::Exception& e) {
      // The 1.8 object format checksums all metadata, so a damaged header ends up here.
      throw GoldenFileError(path, where, "damaged: HDF5 cannot read it (" + detail(e) + ")");
    }
  }

  bool exists(const std::string& object) const {
    if (object == "/") return true;
    // Walk the path: nameExists on "/a/b" fails (not false) when "/a" is missing.
    std::string prefix;
    std::size_t at = 1;
    while (at <= object.size()) {
      const std::size_t next = object.find('/', at);
      prefix = object.substr(0, next);
      if (!file->nameExists(prefix)) return false;
      if (next == std::string::npos) break;
      at = next + 1;
    }
    return true;
  }

  template <class F>
  auto with_object(const std::string& object, F&& f) const {
    return guard(object, [&] {
      if (!exists(object)) throw GoldenFileError(path, object, "missing");
      if (object != "/" && file->childObjType(object) == H5O_TYPE_DATASET) {
        H5::DataSet d = file->openDataSet(object);
        return f(static_cast<H5::H5Object&>(d));
      }
      H5::Group g = file->openGroup(object);
      return f(static_cast<H5::H5Object&>(g));
    });
  }

  H5::Attribute attribute(H5::H5Object& o, const std::string& object, const std::string& name) const {
    if (!o.attrExists(name)) throw GoldenFileError(path, object, "attribute '" + name + "' is missing");
    return o.openAttribute(name);
  }
};

H5Reader::H5Reader(std::string path) : impl_(std::make_unique<Impl>()) {
  silence_hdf5();
  impl_->path = std::move(path);
  const std::string& p = impl_->path;
  std::error_code ec;
  const auto status = std::filesystem::status(p, ec);
  if (!std::filesystem::exists(status)) throw GoldenFileError(p, "", "no such file");
  if (std::filesystem::is_directory(status)) throw GoldenFileError(p, "", "is a directory, not an HDF5 file");
  if (!std::filesystem::is_regular_file(status)) throw GoldenFileError(p, "", "is not a regular file");
  // HDF5 reports a file it may not open as one without a signature: say the system's reason.
  if (::access(p.c_str(), R_OK) != 0) throw GoldenFileError(p, "", std::string("cannot be read: ") + std::strerror(errno));
  const htri_t is_h5 = H5Fis_hdf5(p.c_str());
  if (is_h5 <= 0) throw GoldenFileError(p, "", "not an HDF5 file (no HDF5 signature)");
  try {
    impl_->file.emplace(p, H5F_ACC_RDONLY);
  } catch (const H5::Exception& e) {
    throw GoldenFileError(p, "", "cannot be opened as HDF5, the file is truncated or damaged (" + detail(e) + ")");
  }
}

H5Reader::~H5Reader() = default;

const std::string& H5Reader::path() const { return impl_->path; }

bool H5Reader::exists(const std::string& object) const {
  return impl_->guard(object, [&] { return impl_->exists(object); });
}

bool H5Reader::is_group(const std::string& object) const {
  return impl_->guard(object, [&] {
    if (object == "/") return true;
    return impl_->exists(object) && impl_->file->childObjType(object) == H5O_TYPE_GROUP;
  });
}

std::vector<std::string> H5Reader::children(const std::string& group) const {
  return impl_->guard(group, [&] {
    if (!is_group(group)) throw GoldenFileError(impl_->path, group, "missing (or not a group)");
    H5::Group g = impl_->file->openGroup(group);
    std::vector<std::string> out;
    const hsize_t n = g.getNumObjs();
    for (hsize_t i = 0; i < n; ++i) out.push_back(g.getObjnameByIdx(i));
    std::sort(out.begin(), out.end());
    return out;
  });
}

bool H5Reader::has_attr(const std::string& object, const std::string& name) const {
  if (!exists(object)) return false;
  return impl_->with_object(object, [&](H5::H5Object& o) { return o.attrExists(name); });
}

std::string H5Reader::attr_string(const std::string& object, const std::string& name) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    H5::Attribute a = impl_->attribute(o, object, name);
    if (a.getTypeClass() != H5T_STRING) {
      throw GoldenFileError(impl_->path, object, "attribute '" + name + "' is not a string");
    }
    const H5::StrType t = a.getStrType();
    std::string v;
    a.read(t, v);
    // Fixed-length strings come back with their NUL padding.
    const std::size_t nul = v.find('\0');
    if (nul != std::string::npos) v.resize(nul);
    return v;
  });
}

std::int64_t H5Reader::attr_int(const std::string& object, const std::string& name) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    H5::Attribute a = impl_->attribute(o, object, name);
    if (a.getTypeClass() != H5T_INTEGER || a.getSpace().getSimpleExtentNpoints() != 1) {
      throw GoldenFileError(impl_->path, object, "attribute '" + name + "' is not one integer");
    }
    std::int64_t v = 0;
    a.read(H5::PredType::NATIVE_INT64, &v);
    return v;
  });
}

double H5Reader::attr_double(const std::string& object, const std::string& name) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    H5::Attribute a = impl_->attribute(o, object, name);
    if (a.getTypeClass() != H5T_FLOAT || a.getSpace().getSimpleExtentNpoints() != 1) {
      throw GoldenFileError(impl_->path, object, "attribute '" + name + "' is not one float");
    }
    double v = 0;
    a.read(H5::PredType::NATIVE_DOUBLE, &v);
    return v;
  });
}

std::vector<std::int64_t> H5Reader::attr_ints(const std::string& object, const std::string& name) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    H5::Attribute a = impl_->attribute(o, object, name);
    if (a.getTypeClass() != H5T_INTEGER) {
      throw GoldenFileError(impl_->path, object, "attribute '" + name + "' is not an integer list");
    }
    const auto n = static_cast<std::size_t>(a.getSpace().getSimpleExtentNpoints());
    std::vector<std::int64_t> v(n);
    if (n > 0) a.read(H5::PredType::NATIVE_INT64, v.data());
    return v;
  });
}

std::vector<std::string> H5Reader::attr_names(const std::string& object) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    std::vector<std::string> out;
    const int n = o.getNumAttrs();
    for (int i = 0; i < n; ++i) out.push_back(o.openAttribute(static_cast<unsigned>(i)).getName());
    std::sort(out.begin(), out.end());
    return out;
  });
}

std::string H5Reader::attr_text(const std::string& object, const std::string& name) const {
  return impl_->with_object(object, [&](H5::H5Object& o) {
    H5::Attribute a = impl_->attribute(o, object, name);
    const H5T_class_t cls = a.getTypeClass();
    const bool scalar = a.getSpace().getSimpleExtentNdims() == 0;
    if (cls == H5T_STRING) return "s:" + attr_string(object, name);
    if (cls == H5T_INTEGER && scalar) return "i:" + std::to_string(attr_int(object, name));
    if (cls == H5T_INTEGER) return list_text(attr_ints(object, name));
    if (cls == H5T_FLOAT && scalar) return "f:" + float_text(attr_double(object, name));
    throw GoldenFileError(impl_->path, object, "attribute '" + name + "' has a type this reader does not know");
  });
}

std::string H5Reader::attrs_text(const std::string& object, const std::string& except) const {
  std::string t;
  for (const std::string& name : attr_names(object)) {
    if (name != except) t += name + "=" + attr_text(object, name) + "\n";
  }
  return t;
}

H5Reader::DatasetInfo H5Reader::dataset_info(const std::string& path) const {
  return impl_->guard(path, [&] {
    if (!impl_->exists(path)) throw GoldenFileError(impl_->path, path, "dataset is missing");
    if (impl_->file->childObjType(path) != H5O_TYPE_DATASET) {
      throw GoldenFileError(impl_->path, path, "is not a dataset");
    }
    H5::DataSet ds = impl_->file->openDataSet(path);
    const std::optional<H5Storage> s = storage_of(ds);
    if (!s) {
      throw GoldenFileError(impl_->path, path,
                            "has element type " + describe_type(ds) + "; expected uint8, uint16, uint32, float32 or int64 (little-endian)");
    }
    const H5::DataSpace space = ds.getSpace();
    const int rank = space.getSimpleExtentNdims();
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
    if (rank > 0) space.getSimpleExtentDims(dims.data());
    DatasetInfo info;
    info.storage = *s;
    info.shape.assign(dims.begin(), dims.end());
    return info;
  });
}

std::vector<std::uint8_t> H5Reader::read_dataset(const std::string& path) const {
  const DatasetInfo info = dataset_info(path);
  return impl_->guard(path, [&] {
    H5::DataSet ds = impl_->file->openDataSet(path);
    std::vector<std::uint8_t> bytes(info.elements() * element_bytes(info.storage));
    if (!bytes.empty()) ds.read(bytes.data(), memory_type(info.storage));
    return bytes;
  });
}

std::uint64_t H5Reader::dataset_file_offset(const std::string& path) const {
  return impl_->guard(path, [&] {
    H5::DataSet ds = impl_->file->openDataSet(path);
    const haddr_t off = ds.getOffset();
    if (off == HADDR_UNDEF) throw GoldenFileError(impl_->path, path, "has no contiguous storage");
    return static_cast<std::uint64_t>(off);
  });
}

}  // namespace mxv::golden
