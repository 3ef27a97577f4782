// ScratchDirTest and the file helpers (scratch_dir.h).
#include "mxv/test_support/scratch_dir.h"

#include <unistd.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace mxv::test_support {
namespace fs = std::filesystem;

namespace {

// Suite and test names of parameterised tests hold '/', which must not become folders.
std::string folder_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = "mxv_" + std::string(info ? info->test_suite_name() : "outside") + "_" +
                     std::string(info ? info->name() : "a_test") + "_" + std::to_string(::getpid());
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-') c = '_';
  }
  return name;
}

// Makes every folder below `root` writable again so remove_all can empty it.
void restore_permissions(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return;
  fs::permissions(root, fs::perms::owner_all, fs::perm_options::add, ec);
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  }
}

}  // namespace

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("test: cannot write " + path.string());
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  write_bytes(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

ScratchDirTest::ScratchDirTest() : dir_(fs::temp_directory_path() / folder_name()) {
  restore_permissions(dir_);
  fs::remove_all(dir_);
  fs::create_directories(dir_);
}

ScratchDirTest::~ScratchDirTest() {
  restore_permissions(dir_);
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

std::set<std::string> ScratchDirTest::names() const {
  std::set<std::string> s;
  for (const auto& e : fs::directory_iterator(dir_)) s.insert(e.path().filename().string());
  return s;
}

}  // namespace mxv::test_support
