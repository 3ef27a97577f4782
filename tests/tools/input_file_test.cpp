// Tests of read_input (tools/include/mxv/io/input_file.h): regular files and pipes are read
// whole; directories, devices, missing and empty files are refused with the option, the path and
// the reason.
#include "mxv/io/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "mxv/test_support/refusal.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv::io {
namespace {

namespace fs = std::filesystem;

std::string refusal(const std::string& path, bool allow_empty = false, std::uint64_t cap = kMaxPipeBytes) {
  return test_support::refusal([&] { read_input("--input", path, allow_empty, cap); });
}

using InputFileTest = test_support::ScratchDirTest;

TEST_F(InputFileTest, ReadsARegularFileWhole) {
  std::string big(200000, 'x');
  big[199999] = 'y';
  test_support::write_bytes(path("f"), big);
  const auto bytes = read_input("--input", path("f"));
  ASSERT_EQ(bytes.size(), big.size());
  EXPECT_EQ(bytes.back(), 'y');
}

TEST_F(InputFileTest, ReadsANamedPipeToItsEnd) {
  ASSERT_EQ(::mkfifo(path("p").c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path("p"), std::ios::binary) << std::string(100000, 'z'); });
  const auto bytes = read_input("--input", path("p"));
  writer.join();
  EXPECT_EQ(bytes.size(), 100000u);
}

TEST_F(InputFileTest, APipeOverTheCapIsRefused) {
  ASSERT_EQ(::mkfifo(path("p").c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(path("p"), std::ios::binary) << std::string(5000, 'z'); });
  const std::string why = refusal(path("p"), false, 1000);
  writer.join();
  EXPECT_NE(why.find("delivered more than 1000 bytes"), std::string::npos) << why;
}

TEST_F(InputFileTest, RefusalsNameOptionPathAndReason) {
  test_support::write_bytes(path("empty"), "");
  fs::create_directory(path("d"));
  EXPECT_EQ(refusal(path("missing")), "--input: '" + path("missing") + "' cannot be opened: No such file or directory");
  EXPECT_EQ(refusal(path("d")), "--input: '" + path("d") + "' is a directory, not a file");
  EXPECT_NE(refusal("/dev/zero").find("is a device"), std::string::npos);
  EXPECT_NE(refusal("/dev/null").find("is a device"), std::string::npos);
  EXPECT_EQ(refusal(path("empty")), "--input: '" + path("empty") + "' is empty (0 bytes)");
  EXPECT_EQ(refusal(path("empty"), true), "");
  EXPECT_EQ(refusal(""), "--input: a file is required");
}

}  // namespace
}  // namespace mxv::io
