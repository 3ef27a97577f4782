// `mxv quantize` / `mxv dequantize`: files in and out through the run functions, bad options
// rejected with the option named and no output file left behind, and the real `mxv` program's
// exit code 2 (when the test knows where it is, MXV_EXE). The whole program's bad-input
// catalogue is tests/tools/mxv_cli_test.cpp.
#include "mxv/reference/quantize_command.h"

#include "mxv/io/input_file.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "mxv/test_support/scratch_dir.h"

namespace mxv {
namespace {

namespace fs = std::filesystem;

class QuantizeCommand : public test_support::ScratchDirTest {
 protected:
  void write(const std::string& name, const std::vector<float>& values) const {
    test_support::write_values(path(name), values);
  }
  std::vector<std::uint8_t> read(const std::string& name) const { return io::read_input("test", path(name), true); }
};

// One row [6, 0.5, -1.5] with nvfp4_te and tensor amax 2688 (unit scales): elements 0x17 0x0B,
// scale 0x38, s_dec 1.0 (0x3F800000 little-endian: 00 00 80 3F). Dequantize gives the row back.
TEST_F(QuantizeCommand, QuantizeThenDequantizeFiles) {
  write("x.bin", {6.0f, 0.5f, -1.5f});
  QuantizeRequest q;
  q.input = path("x.bin");
  q.cols = "3";
  q.tensor_amax = "2688";
  q.out_elements = path("e.bin");
  q.out_scales = path("s.bin");
  q.out_global = path("g.bin");
  std::ostringstream log;
  run_quantize(q, log);
  EXPECT_EQ(read("e.bin"), (std::vector<std::uint8_t>{0x17, 0x0B}));
  EXPECT_EQ(read("s.bin"), (std::vector<std::uint8_t>{0x38}));
  EXPECT_EQ(read("g.bin"), (std::vector<std::uint8_t>{0x00, 0x00, 0x80, 0x3F}));

  DequantizeRequest d;
  d.elements = path("e.bin");
  d.scales = path("s.bin");
  d.global = path("g.bin");
  d.rows = "1";
  d.cols = "3";
  d.output = path("y.bin");
  d.out_dtype = "bf16";
  run_dequantize(d, log);
  // bf16 of 6, 0.5, -1.5: 0x40C0, 0x3F00, 0xBFC0.
  EXPECT_EQ(read("y.bin"), (std::vector<std::uint8_t>{0xC0, 0x40, 0x00, 0x3F, 0xC0, 0xBF}));
}

// MX weights, n-packed [1, 2, 2] (K = 2, N = 2): bytes k0 = n0 | n1 << 4.
TEST_F(QuantizeCommand, DequantizeWeights) {
  test_support::write_bytes(path("w.bin"), {0x21, 0xA7});
  test_support::write_bytes(path("ws.bin"), {0x80, 0x7F});
  DequantizeRequest d;
  d.kind = "weights";
  d.recipe = "mxfp4_ocp";
  d.elements = path("w.bin");
  d.scales = path("ws.bin");
  d.experts = "1";
  d.rows = "2";
  d.cols = "2";
  d.packing = "n-packed";
  d.output = path("o.bin");
  std::ostringstream log;
  run_dequantize(d, log);
  // n0: codes 0x1 (0.5), 0x7 (6) x 2 -> 1, 12; n1: 0x2 (1), 0xA (-1) x 1.
  const auto bytes = read("o.bin");
  ASSERT_EQ(bytes.size(), 16u);
  std::vector<float> f(4);
  std::memcpy(f.data(), bytes.data(), 16);
  EXPECT_EQ(f, (std::vector<float>{1.0f, 12.0f, 1.0f, -1.0f}));
}

// Bad options: the error names the option, and no output (nor temporary) exists afterwards.
TEST_F(QuantizeCommand, BadOptionsNameTheOptionAndLeaveNoFiles) {
  write("x.bin", {1, 2, 3, 4, 5, 6});
  struct Case {
    const char* what;
    void (*mutate)(QuantizeRequest&);
  };
  const Case cases[] = {
      {"--cols", [](QuantizeRequest& q) { q.cols = "4"; }},        // 6 values are not rows of 4
      {"--cols", [](QuantizeRequest& q) { q.cols = "x3"; }},
      {"--rows", [](QuantizeRequest& q) { q.rows = "3"; }},        // file holds 2 rows of 3
      {"--recipe: unknown preset", [](QuantizeRequest& q) { q.recipe = "nvfp5"; }},
      {"--dtype: unknown name", [](QuantizeRequest& q) { q.dtype = "fp64"; }},
      {"--scale-layout: unknown name", [](QuantizeRequest& q) { q.scale_layout = "tiled"; }},
      {"--out-global", [](QuantizeRequest& q) { q.out_global.reset(); }},
      {"--rows-per-expert: the counts sum to 3", [](QuantizeRequest& q) { q.rows_per_expert = "1,2"; }},
      {"--input", [](QuantizeRequest& q) { q.input += ".missing"; }},
  };
  for (const Case& c : cases) {
    QuantizeRequest q;
    q.input = path("x.bin");
    q.cols = "3";
    q.out_elements = path("e.bin");
    q.out_scales = path("s.bin");
    q.out_global = path("g.bin");
    c.mutate(q);
    std::ostringstream log;
    try {
      run_quantize(q, log);
      ADD_FAILURE() << c.what << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
    }
    EXPECT_EQ(names(), std::set<std::string>{"x.bin"}) << c.what;
  }
}

#ifdef MXV_EXE
// The program itself: a bad shape exits with code 2 and leaves no output; --help documents the
// file layouts.
TEST_F(QuantizeCommand, ProgramExitsWith2OnBadShape) {
  write("x.bin", {1, 2, 3, 4, 5, 6});
  std::ostringstream cmd;
  cmd << MXV_EXE << " quantize --input " << path("x.bin") << " --cols 4 --out-elements " << path("e.bin")
      << " --out-scales " << path("s.bin") << " --out-global " << path("g.bin") << " 2> " << path("err.txt");
  const int status = std::system(cmd.str().c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_FALSE(fs::exists(path("e.bin")));
  std::ostringstream help;
  help << MXV_EXE << " quantize --help > " << path("help.txt");
  EXPECT_EQ(std::system(help.str().c_str()), 0);
  const std::string text = test_support::read_text(path("help.txt"));
  EXPECT_NE(text.find("element 2i in bits [3:0]"), std::string::npos);
}
#endif

}  // namespace
}  // namespace mxv
