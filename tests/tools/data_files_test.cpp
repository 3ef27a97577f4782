// Tests of the data file lookup (tools/include/mxv/io/data_files.h): MXV_DATA_DIR alone when set
// (no fall back to another copy), otherwise the share/mxv beside or above the test program, which
// in a build tree is build/<preset>/share/mxv with its links into the checkout.
#include "mxv/io/data_files.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "mxv/test_support/scratch_dir.h"

namespace mxv::io {
namespace {

namespace fs = std::filesystem;

// Sets MXV_DATA_DIR (or unsets it, for nullopt) for one test, and restores what was there.
class DataDirEnv {
 public:
  explicit DataDirEnv(const std::optional<std::string>& value) {
    if (const char* old = std::getenv("MXV_DATA_DIR")) saved_ = old;
    if (value) {
      setenv("MXV_DATA_DIR", value->c_str(), 1);
    } else {
      unsetenv("MXV_DATA_DIR");
    }
  }
  ~DataDirEnv() {
    if (saved_) {
      setenv("MXV_DATA_DIR", saved_->c_str(), 1);
    } else {
      unsetenv("MXV_DATA_DIR");
    }
  }
  DataDirEnv(const DataDirEnv&) = delete;
  DataDirEnv& operator=(const DataDirEnv&) = delete;

 private:
  std::optional<std::string> saved_;
};

using DataFilesTest = test_support::ScratchDirTest;

TEST_F(DataFilesTest, TheOverrideIsTheOnlyDirectorySearched) {
  test_support::write_bytes(path("table.bin"), std::string_view("mxv"));
  const DataDirEnv env(dir().string());
  ASSERT_EQ(data_dirs().size(), 1u);
  EXPECT_EQ(data_dirs()[0], dir());
  EXPECT_EQ(find_data_file("table.bin"), dir() / "table.bin");
  // The build tree's share/mxv holds the committed golden set, but the override hides it.
  EXPECT_TRUE(find_data_file("golden").empty());
  const std::string why = describe_data_search("golden");
  EXPECT_NE(why.find("$MXV_DATA_DIR='" + dir().string() + "'"), std::string::npos) << why;
}

TEST(DataFiles, WithoutTheOverrideTheBuildTreesShareMxvIsFound) {
  const DataDirEnv env(std::nullopt);
  ASSERT_FALSE(data_dirs().empty());
  for (const fs::path& d : data_dirs()) EXPECT_EQ(d.filename(), "mxv") << d;
  const fs::path golden = find_data_file("golden");
  ASSERT_FALSE(golden.empty());
  EXPECT_TRUE(fs::exists(golden / "quantize.h5")) << golden;
  EXPECT_TRUE(find_data_file("no_such_file.bin").empty());
  const std::string why = describe_data_search("no_such_file.bin");
  EXPECT_NE(why.find("data_files_test"), std::string::npos) << why;  // names the binary searched from
  EXPECT_NE(why.find("MXV_DATA_DIR is not set"), std::string::npos) << why;
}

TEST(DataFiles, AnEmptyOverrideCountsAsUnset) {
  const DataDirEnv env{std::string()};
  EXPECT_FALSE(find_data_file("golden").empty());
}

}  // namespace
}  // namespace mxv::io
