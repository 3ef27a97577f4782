// Tests of `mxv swiglu-quantize` (reference/src/swiglu_command.cpp): files in and out through
// run_swiglu_quantize (the CLI's logic), a hand-derived known answer read back from the files,
// agreement with the model for bf16 input and grouped rows, and bad input that must throw
// std::invalid_argument (exit code 2 in the mxv program; tests/tools/mxv_cli_test.cpp runs the
// program itself) and leave no output file behind.
#include "mxv/reference/swiglu_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/reference/swiglu_quantize.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv {
namespace {

namespace fs = std::filesystem;

class SwigluCommand : public test_support::ScratchDirTest {
 protected:
  template <class T>
  void write(const std::string& name, const std::vector<T>& values) const {
    test_support::write_values(path(name), values);
  }
  std::vector<std::uint8_t> read(const std::string& name) const { return test_support::read_bytes(path(name)); }
  std::vector<float> read_floats(const std::string& name) const {
    const auto bytes = read(name);
    std::vector<float> v(bytes.size() / 4);
    std::memcpy(v.data(), bytes.data(), v.size() * 4);
    return v;
  }
  SwigluQuantizeRequest request(const std::string& input, const std::string& isize) const {
    SwigluQuantizeRequest r;
    r.input = path(input);
    r.intermediate_size = isize;
    r.out_elements = path("codes.bin");
    r.out_scales = path("scales.bin");
    r.out_global = path("global.bin");
    return r;
  }
};

TEST_F(SwigluCommand, KnownAnswerThroughFiles) {
  // One row, I = 16, swiglu-clamped(alpha 10, limit 7), gates 2: activated = 2 * (u + 1).
  // Ups 5, 0, then -1 (activated 0): block amax 12, tensor amax given as 2688 so S = 1,
  // sf = E4M3(12 * fl(1/6)) = 2.0 = 0x40, elements x * 0.5: 12 -> 6 (0x7), 2 -> 1 (0x2), 0.
  std::vector<float> row(32, 2.0f);
  for (std::size_t j = 0; j < 16; ++j) row[16 + j] = -1.0f;
  row[16] = 5.0f;
  row[17] = 0.0f;
  write("in.f32", row);
  auto req = request("in.f32", "16");
  req.activation = "swiglu-clamped";
  req.alpha = "10";
  req.limit = "7";
  req.tensor_amax = "2688";
  req.scale_layout = "linear";
  req.out_activated = path("act.f32");
  std::ostringstream log;
  run_swiglu_quantize(req, log);
  const std::vector<std::uint8_t> codes = read("codes.bin");
  ASSERT_EQ(codes.size(), 8u);
  EXPECT_EQ(codes[0], 0x27);  // element 1 (0x2) high nibble, element 0 (0x7) low
  for (std::size_t i = 1; i < 8; ++i) EXPECT_EQ(codes[i], 0x00) << i;
  EXPECT_EQ(read("scales.bin"), std::vector<std::uint8_t>{0x40});
  EXPECT_EQ(read_floats("global.bin"), (std::vector<float>{1.0f}));  // s_dec only, as quantize writes it
  const auto act = read_floats("act.f32");
  ASSERT_EQ(act.size(), 16u);
  EXPECT_EQ(act[0], 12.0f);
  EXPECT_NE(log.str().find("1 rows x I=16"), std::string::npos) << log.str();
}

TEST_F(SwigluCommand, Bf16GroupedSwizzledMatchesTheModel) {
  // 5 rows in experts {3, 2}, I = 24 (a partial second block), interleaved:8, bf16 input.
  const std::size_t rows = 5, isize = 24;
  std::vector<std::uint16_t> in(rows * 2 * isize);
  std::uint32_t state = 12345;
  for (auto& v : in) {  // deterministic bf16 values, magnitudes 2^-7 .. 2^120, both signs
    state = state * 1664525u + 1013904223u;
    v = static_cast<std::uint16_t>(0x3C00u + (state >> 22) * 0x10u) ^ static_cast<std::uint16_t>(state & 0x8000u);
  }
  write("in.bf16", in);
  auto req = request("in.bf16", "24");
  req.dtype = "bf16";
  req.layout = "interleaved:8";
  req.rows_per_expert = "3,2";
  req.scale_per_expert = true;
  req.activated_dtype = "bf16";
  std::ostringstream log;
  run_swiglu_quantize(req, log);

  Recipe recipe = Recipe::nvfp4_te();
  recipe.activation = Activation::kSilu;
  recipe.intermediate = Intermediate::kBf16;
  SwigluQuantizeOptions opt;
  opt.layout = GateUpLayout::interleaved(8);
  opt.group_counts = {3, 2};
  opt.scale_per_group = true;
  const auto model = swiglu_quantize_fused(recipe, GateUpView::from_bf16(in, rows, isize), opt);
  EXPECT_EQ(read("codes.bin"), model.quantized.elements);
  EXPECT_EQ(read("scales.bin"), model.quantized.scales);
  EXPECT_EQ(read("scales.bin").size(), 2u * 128u * 4u);  // two experts, each padded to 128 rows
  const auto global = read_floats("global.bin");
  ASSERT_EQ(global.size(), 2u);
  EXPECT_EQ(global[0], model.quantized.tensor[0].s_dec);
  EXPECT_EQ(global[1], model.quantized.tensor[1].s_dec);
  // The unfused pair writes the same bytes (fused with a bf16 intermediate == unfused); it
  // refuses --activated-dtype, which it does not use.
  req.activated_dtype.reset();
  req.unfused = true;
  run_swiglu_quantize(req, log);
  EXPECT_EQ(read("codes.bin"), model.quantized.elements);
  EXPECT_EQ(read("scales.bin"), model.quantized.scales);
}

TEST_F(SwigluCommand, BadInputThrowsAndWritesNothing) {
  write("in.f32", std::vector<float>(2 * 32, 1.0f));  // 2 rows of 2I = 32
  struct Case {
    const char* what;
    void (*edit)(SwigluQuantizeRequest&);
  };
  const Case cases[] = {
      {"I does not divide the file", [](SwigluQuantizeRequest& r) { r.intermediate_size = "15"; }},
      {"I not a number", [](SwigluQuantizeRequest& r) { r.intermediate_size = "16x"; }},
      {"I zero", [](SwigluQuantizeRequest& r) { r.intermediate_size = "0"; }},
      {"rows disagree", [](SwigluQuantizeRequest& r) { r.rows = "3"; }},
      {"g does not divide I", [](SwigluQuantizeRequest& r) { r.layout = "interleaved:3"; }},
      {"bad layout", [](SwigluQuantizeRequest& r) { r.layout = "stripes"; }},
      {"bad activation", [](SwigluQuantizeRequest& r) { r.activation = "gelu"; }},
      {"alpha with silu", [](SwigluQuantizeRequest& r) { r.alpha = "1.5"; }},
      {"bad alpha", [](SwigluQuantizeRequest& r) {
         r.activation = "swiglu-clamped";
         r.alpha = "fast";
       }},
      {"negative limit", [](SwigluQuantizeRequest& r) {
         r.activation = "swiglu-clamped";
         r.limit = "-1";
       }},
      {"MX recipe", [](SwigluQuantizeRequest& r) { r.recipe = "mxfp4_ocp"; }},
      {"unknown recipe", [](SwigluQuantizeRequest& r) { r.recipe = "nvfp5"; }},
      {"bad dtype", [](SwigluQuantizeRequest& r) { r.dtype = "fp16"; }},
      {"bad intermediate", [](SwigluQuantizeRequest& r) { r.activated_dtype = "fp8"; }},
      {"counts do not sum", [](SwigluQuantizeRequest& r) { r.rows_per_expert = "1,2"; }},
      {"negative count", [](SwigluQuantizeRequest& r) { r.rows_per_expert = "3,-1"; }},
      {"empty count", [](SwigluQuantizeRequest& r) { r.rows_per_expert = "1,,1"; }},
      {"per expert without experts", [](SwigluQuantizeRequest& r) { r.scale_per_expert = true; }},
      {"bad scale layout", [](SwigluQuantizeRequest& r) { r.scale_layout = "tiled"; }},
      {"negative tensor amax", [](SwigluQuantizeRequest& r) { r.tensor_amax = "-3"; }},
      {"NaN tensor amax", [](SwigluQuantizeRequest& r) { r.tensor_amax = "nan"; }},
      {"unfused with --activated-dtype", [](SwigluQuantizeRequest& r) {
         r.unfused = true;
         r.activated_dtype = "bf16";
       }},
      {"missing input", [](SwigluQuantizeRequest& r) { r.input += ".missing"; }},
      {"output twice", [](SwigluQuantizeRequest& r) { r.out_global = r.out_elements; }},
      {"output is the input", [](SwigluQuantizeRequest& r) { r.out_elements = r.input; }},
      {"missing output", [](SwigluQuantizeRequest& r) { r.out_scales.clear(); }},
  };
  for (const Case& c : cases) {
    auto req = request("in.f32", "16");
    c.edit(req);
    std::ostringstream log;
    EXPECT_THROW(run_swiglu_quantize(req, log), std::invalid_argument) << c.what;
    EXPECT_EQ(names(), std::set<std::string>{"in.f32"}) << c.what;  // no output, no temporary
  }
  // The unchanged request works (so the cases above fail for their own reason).
  std::ostringstream log;
  EXPECT_NO_THROW(run_swiglu_quantize(request("in.f32", "16"), log));
  EXPECT_EQ(names(), (std::set<std::string>{"codes.bin", "global.bin", "in.f32", "scales.bin"}));
}

TEST_F(SwigluCommand, HelpDocumentsEveryFile) {
  const std::string_view help = swiglu_quantize_file_layouts();
  for (const char* option : {"--input", "--out-elements", "--out-scales", "--out-global", "--out-activated"}) {
    EXPECT_NE(help.find(option), std::string_view::npos) << option;
  }
}

}  // namespace
}  // namespace mxv
