// Tests of `mxv convert`'s logic (convert_command.h): raw
// little-endian files in and out, decode back, the fp32 sweep's per-chunk SHA-256 lines, and
// clear errors that leave no partial output file. Expected bytes are written out by hand.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/reference/convert_command.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv {
namespace {

namespace fs = std::filesystem;

class ConvertCommand : public test_support::ScratchDirTest {
 protected:
  static void write(const std::string& p, const std::vector<std::uint8_t>& bytes) { test_support::write_bytes(p, bytes); }
  static std::vector<std::uint8_t> read(const std::string& p) { return test_support::read_bytes(p); }
};

// fp32 little-endian bytes of: 0.3, 448, 464, 500, -1, NaN.
const std::vector<std::uint8_t> kFp32Input = {
    0x9A, 0x99, 0x99, 0x3E,  // 0.3     -> E4M3 0x2A (0.3125 = 1.25 * 2^-2)
    0x00, 0x00, 0xE0, 0x43,  // 448     -> 0x7E
    0x00, 0x00, 0xE8, 0x43,  // 464     -> 0x7E (tie to even)
    0x00, 0x00, 0xFA, 0x43,  // 500     -> 0x7E satfinite / 0x7F none
    0x00, 0x00, 0x80, 0xBF,  // -1      -> 0xB8
    0x00, 0x00, 0xC0, 0x7F,  // NaN     -> 0x7F
};

TEST_F(ConvertCommand, EncodesRawFp32AndDecodesBack) {
  write(path("in.f32"), kFp32Input);
  ConvertRequest r;
  r.format = "e4m3";
  r.input = path("in.f32");
  r.output = path("out.e4m3");
  std::ostringstream os;
  run_convert(r, os);
  EXPECT_EQ(read(r.output), (std::vector<std::uint8_t>{0x2A, 0x7E, 0x7E, 0x7E, 0xB8, 0x7F}));
  r.saturation = "none";
  run_convert(r, os);
  EXPECT_EQ(read(r.output), (std::vector<std::uint8_t>{0x2A, 0x7E, 0x7E, 0x7F, 0xB8, 0x7F}));

  ConvertRequest d;
  d.format = "e4m3";
  d.decode = true;
  d.input = r.output;
  d.output = path("back.f32");
  run_convert(d, os);
  const std::vector<std::uint8_t> back = read(d.output);
  ASSERT_EQ(back.size(), 24u);
  EXPECT_EQ(std::vector<std::uint8_t>(back.begin(), back.begin() + 8),
            (std::vector<std::uint8_t>{0x00, 0x00, 0xA0, 0x3E,     // 0.3125
                                       0x00, 0x00, 0xE0, 0x43}));  // 448
  d.out_dtype = "bf16";
  d.output = path("back.bf16");
  run_convert(d, os);
  EXPECT_EQ(read(d.output).size(), 12u);
  EXPECT_EQ(read(d.output)[0], 0xA0);  // 0.3125 = bf16 0x3EA0, little-endian
  EXPECT_EQ(read(d.output)[1], 0x3E);
}

TEST_F(ConvertCommand, Bf16AndFp16InputsAndDefaultsPerFormat) {
  // bf16 3.0 = 0x4040, fp16 3.0 = 0x4200. E8M0 by default rounds up (cuda has no nearest):
  // ceil(log2 3) = 2 -> 0x81. E2M1 3.0 -> 0x5.
  write(path("x.bf16"), {0x40, 0x40});
  write(path("x.f16"), {0x00, 0x42});
  std::ostringstream os;
  ConvertRequest r;
  r.format = "e8m0";
  r.dtype = "bf16";
  r.input = path("x.bf16");
  r.output = path("x.e8m0");
  run_convert(r, os);
  EXPECT_EQ(read(r.output), std::vector<std::uint8_t>{0x81});
  r.rounding = "toward-zero";
  r.dtype = "fp16";
  r.input = path("x.f16");
  run_convert(r, os);
  EXPECT_EQ(read(r.output), std::vector<std::uint8_t>{0x80});
  r = ConvertRequest{};
  r.format = "e8m0";
  r.dialect = "ml_dtypes";  // defaults become nearest (ties up) and none: 3.0 -> 4.0
  r.dtype = "fp16";
  r.input = path("x.f16");
  r.output = path("y.e8m0");
  run_convert(r, os);
  EXPECT_EQ(read(r.output), std::vector<std::uint8_t>{0x81});
}

TEST_F(ConvertCommand, BadRequestsThrowAndLeaveNoOutput) {
  write(path("odd.f32"), {1, 2, 3, 4, 5});
  write(path("ok.f32"), kFp32Input);
  write(path("codes"), {0x01, 0x1F});
  struct Case {
    const char* what;
    ConvertRequest r;
    const char* message;
  };
  auto req = [&](auto&& edit) {
    ConvertRequest r;
    r.format = "e4m3";
    r.input = path("ok.f32");
    r.output = path("out");
    edit(r);
    return r;
  };
  const Case cases[] = {
      {"bad format", req([](ConvertRequest& r) { r.format = "fp4"; }), "format"},
      {"bad rounding", req([](ConvertRequest& r) { r.rounding = "nearest"; }), "rounding"},
      {"unsupported mode", req([](ConvertRequest& r) { r.rounding = "up"; }), "not supported"},
      {"bad dialect", req([](ConvertRequest& r) { r.dialect = "jax"; }), "dialect"},
      {"bad type", req([](ConvertRequest& r) { r.dtype = "fp8"; }), "--dtype"},
      {"odd size", req([&](ConvertRequest& r) { r.input = path("odd.f32"); }), "multiple"},
      {"missing input", req([&](ConvertRequest& r) { r.input = path("nope"); }), "cannot be opened"},
      {"no output", req([](ConvertRequest& r) { r.output.clear(); }), "--output"},
      {"bad code", req([&](ConvertRequest& r) {
         r.format = "e2m1";
         r.decode = true;
         r.input = path("codes");
       }), "0x1F"},
      {"digest on a file", req([](ConvertRequest& r) { r.digest = true; }), "--digest"},
      {"bad output dir", req([&](ConvertRequest& r) { r.output = path("no/such/dir/out"); }),
       "--output"},
  };
  std::ostringstream os;
  for (const Case& c : cases) {
    try {
      run_convert(c.r, os);
      ADD_FAILURE() << c.what << ": no exception";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << c.what << ": " << e.what();
    }
    EXPECT_FALSE(fs::exists(path("out"))) << c.what << " left an output file";
  }
  // Nothing but the inputs is left in the directory (no temporary files).
  EXPECT_EQ(names(), (std::set<std::string>{"codes", "odd.f32", "ok.f32"}));
}

TEST(ConvertSha256, KnownVectors) {
  // FIPS 180-2 appendix B.1 ("abc") and the empty message.
  const std::string abc = "abc";
  EXPECT_EQ(sha256_hex({reinterpret_cast<const std::uint8_t*>(abc.data()), abc.size()}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex({}),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ConvertSweep, PrintsOneLinePerChunkWithTheDigestOfItsCodes) {
  // Chunk 0 covers fp32 patterns 0 .. 2^24-1: +0 and tiny positive subnormals, all of which are
  // E4M3 code 0x00 (|x| <= 2^-10). Chunk 127 (patterns 0x7F000000..0x7FFFFFFF) holds 2^127
  // up to Inf, which overflow to 0x7E under satfinite, then the 2^23 - 1 positive NaNs, 0x7F.
  std::vector<std::uint8_t> zeros(kSweepChunk, 0x00);
  std::vector<std::uint8_t> maxes(kSweepChunk, 0x7E);
  for (std::uint32_t i = (1u << 23) + 1; i < kSweepChunk; ++i) maxes[i] = 0x7F;
  ConvertRequest r;
  r.format = "e4m3";
  r.sweep = "fp32";
  r.digest = true;
  r.chunks = "0:1";
  std::ostringstream os;
  run_convert(r, os);
  EXPECT_EQ(os.str(), "0 " + sha256_hex(zeros) + "\n");
  r.chunks = "127:128";
  std::ostringstream os2;
  run_convert(r, os2);
  EXPECT_EQ(os2.str(), "127 " + sha256_hex(maxes) + "\n");

  for (const char* bad : {"", "5", "2:1", "0:257", "a:b", "1:2:3"}) {
    r.chunks = bad;
    EXPECT_THROW(run_convert(r, os), std::invalid_argument) << "chunks '" << bad << "'";
  }
  r.chunks = "0:1";
  r.digest = false;
  EXPECT_THROW(run_convert(r, os), std::invalid_argument);
  r.digest = true;
  r.sweep = "bf16";
  EXPECT_THROW(run_convert(r, os), std::invalid_argument);
}

}  // namespace
}  // namespace mxv
