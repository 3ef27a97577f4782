// The folder a file-in / file-out test works in: a fresh, empty folder per test under the system
// temporary folder, named after the test and the process (so parallel ctest runs never share
// one), removed with everything in it when the test ends; and whole-file reads and writes.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mxv::test_support {

/// Every byte of `path`; empty when it cannot be opened (a missing output reads as no bytes, so
/// an equality test against the expected bytes fails with both shown).
std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path);
std::string read_text(const std::filesystem::path& path);

/// Replaces `path` with exactly `bytes`; throws std::runtime_error when it cannot.
void write_bytes(const std::filesystem::path& path, std::string_view bytes);
void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes);

/// `values` in this machine's representation (little-endian on every host mxv builds for), as
/// numpy's tofile writes them.
template <class T>
  requires std::is_trivially_copyable_v<T>
void write_values(const std::filesystem::path& path, const std::vector<T>& values) {
  write_bytes(path, std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T)));
}

/// Fixture: the folder is created (emptied first) before the test body and removed after it,
/// permissions restored first so that a test may leave a read-only folder behind.
class ScratchDirTest : public ::testing::Test {
 protected:
  ScratchDirTest();
  ~ScratchDirTest() override;
  ScratchDirTest(const ScratchDirTest&) = delete;
  ScratchDirTest& operator=(const ScratchDirTest&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  /// `name` inside the folder.
  std::string path(std::string_view name) const { return (dir_ / name).string(); }
  /// The names of the entries directly in the folder.
  std::set<std::string> names() const;

 private:
  std::filesystem::path dir_;
};

}  // namespace mxv::test_support
