// Proof that CudaCtx costs nothing (docs/design.md section 3.4, "One kernel source, two
// executions"): the sample kernel body of zero_cost/sample_kernel.h, instantiated with CudaCtx
// (zero_cost/sample_with_ctx.cu), and the same logic written with raw builtins
// (zero_cost/sample_with_builtins.cu) are compiled by nvcc for sm_90, and
//   1. their PTX is identical once names are canonicalised (the only difference is the mangled
//      name of the shared array), and
//   2. the SASS that ptxas emits (the .text section of the cubin) is identical byte for byte.
// A planted difference (one extra __syncthreads, MXV_PLANTED_DIFFERENCE=1) must be caught by
// both comparisons. Without nvcc the tests are skipped with the reason. The same body also runs
// in the emulator, clean and correct, showing one source serves both executions.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "mxv/emulation/emulator.h"
#include "mxv/test_support/nvcc.h"
#include "zero_cost/sample_kernel.h"

namespace mxv::emu {
namespace {

namespace fs = std::filesystem;
using test_support::nvcc_path;

fs::path zero_cost_dir() { return fs::path(MXV_SOURCE_DIR) / "tests" / "emulation" / "zero_cost"; }

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

// Compiles one sample with `mode` (-ptx or -cubin); returns the output path, or fails the test.
fs::path compile(const std::string& source, const std::string& mode, const std::string& extra) {
  const fs::path out_dir = fs::path(::testing::TempDir()) / "mxv_zero_cost";
  fs::create_directories(out_dir);
  const std::string stem = source + (extra.empty() ? "" : ".planted") + (mode == "-ptx" ? ".ptx" : ".cubin");
  const fs::path out = out_dir / stem;
  const fs::path log = out_dir / (stem + ".log");
  const std::string cmd = "'" + nvcc_path() + "' " + mode + " -arch=sm_90 -std=c++20 -O3 " + extra +
                          " -I'" + (fs::path(MXV_SOURCE_DIR) / "device" / "include").string() + "' '" +
                          (zero_cost_dir() / source).string() + "' -o '" + out.string() + "' > '" +
                          log.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd << "\n" << read_file(log);
  return out;
}

// PTX without comments and blank lines, every mangled name (_Z...) replaced by "sym<k>" in order
// of first appearance, so two kernels that differ only in names compare equal.
std::vector<std::string> canonical_ptx(const fs::path& ptx) {
  std::istringstream in(read_file(ptx));
  std::vector<std::string> lines;
  std::map<std::string, std::string> names;
  const std::regex mangled(R"(_Z[A-Za-z0-9_]+)");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0) continue;
    std::string out;
    auto begin = std::sregex_iterator(line.begin(), line.end(), mangled);
    std::size_t pos = 0;
    for (auto it = begin; it != std::sregex_iterator(); ++it) {
      out += line.substr(pos, static_cast<std::size_t>(it->position()) - pos);
      auto [entry, inserted] = names.emplace(it->str(), "sym" + std::to_string(names.size()));
      out += entry->second;
      pos = static_cast<std::size_t>(it->position() + it->length());
    }
    out += line.substr(pos);
    lines.push_back(out);
  }
  return lines;
}

// The bytes of one section of an ELF64 little-endian file (a cubin), found by name.
std::string elf_section(const fs::path& path, const std::string& name) {
  const std::string d = read_file(path);
  auto u16 = [&](std::size_t at) { std::uint16_t v; std::memcpy(&v, d.data() + at, 2); return std::size_t{v}; };
  auto u32 = [&](std::size_t at) { std::uint32_t v; std::memcpy(&v, d.data() + at, 4); return std::size_t{v}; };
  auto u64 = [&](std::size_t at) { std::uint64_t v; std::memcpy(&v, d.data() + at, 8); return static_cast<std::size_t>(v); };
  if (d.size() < 64 || d.compare(0, 4, "\x7f" "ELF") != 0 || d[4] != 2) {
    ADD_FAILURE() << path << " is not an ELF64 file";
    return {};
  }
  const std::size_t shoff = u64(0x28), shentsize = u16(0x3A), shnum = u16(0x3C), shstrndx = u16(0x3E);
  const std::size_t strtab = u64(shoff + shstrndx * shentsize + 0x18);
  for (std::size_t i = 0; i < shnum; ++i) {
    const std::size_t h = shoff + i * shentsize;
    const std::string section_name(d.c_str() + strtab + u32(h));
    if (section_name == name) return d.substr(u64(h + 0x18), u64(h + 0x20));
  }
  ADD_FAILURE() << "no section " << name << " in " << path;
  return {};
}

std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    const std::string x = i < a.size() ? a[i] : "<end>", y = i < b.size() ? b[i] : "<end>";
    if (x != y) return "line " + std::to_string(i) + ":\n  ctx:      " + x + "\n  builtins: " + y;
  }
  return "none";
}

class CudaCtxZeroCost : public ::testing::Test {
 protected:
  void SetUp() override {
    if (nvcc_path().empty()) GTEST_SKIP() << "nvcc not found (set MXV_NVCC to its path to run this proof)";
  }
};

TEST_F(CudaCtxZeroCost, PtxIsIdenticalIgnoringNames) {
  const auto ctx = canonical_ptx(compile("sample_with_ctx.cu", "-ptx", ""));
  const auto raw = canonical_ptx(compile("sample_with_builtins.cu", "-ptx", ""));
  ASSERT_GT(ctx.size(), 50u) << "suspiciously short PTX";
  EXPECT_EQ(ctx, raw) << "first difference at " << first_difference(ctx, raw);
  const auto planted = canonical_ptx(compile("sample_with_builtins.cu", "-ptx", "-DMXV_PLANTED_DIFFERENCE=1"));
  EXPECT_NE(ctx, planted) << "the comparison failed to notice an extra barrier";
}

TEST_F(CudaCtxZeroCost, SassIsIdenticalByteForByte) {
  const std::string ctx = elf_section(compile("sample_with_ctx.cu", "-cubin", ""), ".text.sample_kernel");
  const std::string raw = elf_section(compile("sample_with_builtins.cu", "-cubin", ""), ".text.sample_kernel");
  ASSERT_GT(ctx.size(), 256u);
  EXPECT_EQ(ctx.size(), raw.size());
  EXPECT_TRUE(ctx == raw) << "SASS of the CudaCtx instantiation differs from the builtins version";
  const std::string planted = elf_section(compile("sample_with_builtins.cu", "-cubin", "-DMXV_PLANTED_DIFFERENCE=1"),
                                          ".text.sample_kernel");
  EXPECT_FALSE(ctx == planted) << "the comparison failed to notice an extra barrier";
}

TEST(CudaCtxSampleOnTheEmulator, SameBodyRunsCleanAndCorrect) {
  Emulator emu;
  const unsigned n = 1000, blocks = 4, block = zero_cost::kSampleBlock;  // last block partly past n
  std::vector<float> x(n);
  for (unsigned i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>(i * 7 % 31) - 15) * 0.5f;
  auto in = emu.alloc<float>(n, "in");
  auto out = emu.alloc<float>(2 * n, "out");
  auto flags = emu.alloc<std::uint32_t>(blocks * block / 32 + 1, "flags");
  emu.upload(in, std::span<const float>(x));
  std::vector<std::uint32_t> zeros(blocks * block / 32 + 1, 0);
  emu.upload(flags, std::span<const std::uint32_t>(zeros));
  const device::GlobalPtr<const float> cin{in.raw};
  emu.launch("sample", {blocks, 1, 1}, {block, 1, 1}, 0,
             [&](EmuCtx& ctx) { zero_cost::sample_body(ctx, cin, out, flags, n); });
  EXPECT_TRUE(emu.findings().empty()) << emu.findings_report();
  // Each warp's ballot of x > 0 in its slot, and their maximum in the word after the slots.
  std::vector<std::uint32_t> votes(blocks * block / 32 + 1);
  emu.download(std::span(votes), flags);
  std::uint32_t max_vote = 0;
  for (unsigned w = 0; w < blocks * block / 32; ++w) {
    std::uint32_t want = 0;
    for (unsigned l = 0; l < 32; ++l) want |= (w * 32 + l < n && x[w * 32 + l] > 0.0f ? 1u : 0u) << l;
    ASSERT_EQ(votes[w], want) << "warp " << w;
    max_vote = std::max(max_vote, want);
  }
  EXPECT_EQ(votes.back(), max_vote);
  std::vector<float> got(2 * n);
  emu.download(std::span(got), out);
  auto xv = [&](unsigned i) { return i < n ? x[i] : 0.0f; };
  for (unsigned i = 0; i < n; ++i) {
    const unsigned b = i / block, w = (i % block) / 32;
    float a = 0.0f;
    for (unsigned l = 0; l < 32; ++l) {
      const unsigned t = w * 32 + l;
      a = std::max(a, std::fabs(xv(b * block + t) + xv(b * block + (t + 1) % block)));
    }
    ASSERT_EQ(got[i], a) << i;
    if (i % 4 == 0 && i + 3 < n) {
      ASSERT_EQ(got[n + i], x[i]) << i;
    }
  }
}

}  // namespace
}  // namespace mxv::emu
