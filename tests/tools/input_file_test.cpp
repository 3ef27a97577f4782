// Tests of read_input (tools/include/mxv/io/input_file.h): regular files and pipes are read
// whole (a pipe up to a cap); directories, devices, missing and empty files are refused with the
// option, the path and the reason.
#include "mxv/io/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
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

// The pipe cap never exceeds half the physical memory (read independently here with sysconf),
// so a machine smaller than twice the default cap refuses an endless pipe instead of running out
// of memory; below that, the caller's cap stands.
TEST(PipeCap, IsTheCallersCapButAtMostHalfThePhysicalMemory) {
  const auto memory = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_GT(memory, 0u);
  EXPECT_EQ(pipe_cap(1000), 1000u);
  EXPECT_LE(pipe_cap(std::uint64_t{1} << 62), memory / 2);
  EXPECT_GE(pipe_cap(std::uint64_t{1} << 62), memory / 2 - static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(pipe_cap(kMaxPipeBytes), std::min(kMaxPipeBytes, pipe_cap(std::uint64_t{1} << 62)));
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
