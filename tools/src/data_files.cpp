#include "mxv/io/data_files.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <string>
#include <system_error>

namespace mxv::io {

namespace fs = std::filesystem;

namespace {

// The file holding this very function: the main program (its link map has an empty name, and
// dladdr would report argv[0], which may be relative or a PATH lookup) or the shared object this
// library was linked into (the Python extension), by the absolute name the loader used.
fs::path this_binary() {
  Dl_info info{};
  link_map* map = nullptr;
  if (dladdr1(reinterpret_cast<void*>(&this_binary), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0 &&
      map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') {
    return fs::path(map->l_name);
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : exe;
}

const char* override_dir() {
  const char* env = std::getenv("MXV_DATA_DIR");
  return (env != nullptr && *env != '\0') ? env : nullptr;
}

}  // namespace

std::vector<fs::path> data_dirs() {
  if (const char* env = override_dir()) return {fs::path(env)};
  std::vector<fs::path> dirs;
  std::error_code ec;
  fs::path binary = fs::weakly_canonical(this_binary(), ec);
  if (ec || binary.empty()) return dirs;
  for (fs::path dir = binary.parent_path();; dir = dir.parent_path()) {
    const fs::path candidate = dir / "share" / "mxv";
    if (fs::is_directory(candidate, ec)) dirs.push_back(candidate);
    if (dir == dir.root_path() || dir.parent_path() == dir) break;
  }
  return dirs;
}

fs::path find_data_file(std::string_view name) {
  std::error_code ec;
  for (const fs::path& dir : data_dirs()) {
    fs::path candidate = dir / fs::path(name);
    if (fs::exists(candidate, ec)) return candidate;
  }
  return {};
}

std::string describe_data_search(std::string_view name) {
  if (const char* env = override_dir()) return "no '" + std::string(name) + "' in $MXV_DATA_DIR='" + env + "'";
  return "no '" + std::string(name) + "' in a share/mxv directory beside or above '" + this_binary().string() +
         "', and MXV_DATA_DIR is not set";
}

}  // namespace mxv::io
