// Tests of quantize_specs.cpp: the check library's specs agree with quantize_activations' buffers
// (sizes, and offsets derived by hand from docs/semantics.md section 5), and a planted tie flip in a
// real quantized output is explained with its context.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "mxv/check/gtest.h"
#include "mxv/check/storage_map.h"
#include "mxv/check/quantize_specs.h"

namespace mxv::check {
namespace {

std::vector<float> ramp(std::size_t n) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = static_cast<float>(static_cast<int>(i % 23) - 11) * 0.37f;
  return x;
}

struct Case {
  const char* recipe;
  std::int64_t rows, cols;
  ScaleLayout layout;
  std::vector<std::int64_t> groups;
};

// Test names and failure messages show the case, not its bytes.
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.recipe << "_" << c.rows << "x" << c.cols << "_" << to_string(c.layout) << "_" << c.groups.size() << "groups";
}
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::ostringstream os;
  PrintTo(info.param, &os);
  return os.str();
}

class CheckQuantizeSpecs : public ::testing::TestWithParam<Case> {};

TEST_P(CheckQuantizeSpecs, SizesAgreeAndIdenticalOutputsMatch) {
  const Case& c = GetParam();
  const Recipe recipe = Recipe::by_name(c.recipe);
  QuantizeOptions opt;
  opt.scale_layout = c.layout;
  opt.group_counts = c.groups;
  const std::vector<float> x = ramp(static_cast<std::size_t>(c.rows * c.cols));
  const QuantizedActivations q = quantize_activations(recipe, x, c.rows, c.cols, opt);
  const OutputSpec es = element_spec(q), ss = scale_spec(recipe, q);
  EXPECT_EQ(storage_bytes(es), q.elements.size());
  EXPECT_EQ(storage_bytes(ss), q.scales.size());
  // The checker's layout (storage_map.cpp) and the model's (scale_layout.cpp) are written
  // independently; they must put every scale at the same byte.
  const StorageMap map(ss);
  for (std::int64_t r = 0; r < q.rows; ++r) {
    for (std::int64_t k = 0; k < q.scale_cols; ++k) {
      const auto element = static_cast<std::size_t>(r * q.scale_cols + k);
      ASSERT_EQ(map.byte_of(map.slot_of(element)),
                static_cast<std::size_t>(scale_offset(q.scale_layout, q.groups, r, k, q.scale_cols)))
          << "row " << r << " block " << k;
    }
  }
  EXPECT_TRUE(matches(compare(es, q.elements, q.elements, element_context(recipe, q))));
  EXPECT_TRUE(matches(compare(ss, q.scales, q.scales, scale_context(q))));
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, CheckQuantizeSpecs,
    ::testing::Values(Case{"nvfp4_te", 3, 32, ScaleLayout::kLinear, {}},
                      Case{"nvfp4_te", 5, 33, ScaleLayout::kSwizzled128x4, {}},   // odd K: partial block, half byte
                      Case{"nvfp4_te", 133, 48, ScaleLayout::kSwizzled128x4, {3, 0, 130}},  // grouped, empty expert
                      Case{"mxfp4_ocp", 4, 64, ScaleLayout::kLinear, {1, 3}},
                      Case{"mxfp8_nvidia", 2, 40, ScaleLayout::kSwizzled128x4, {}}),
    case_name);

TEST(CheckQuantize, GroupedSwizzledScaleCoordinates) {
  // Experts of 3 and 130 rows, K = 64 (NVFP4: 4 scale columns, n_k = 1). Expert 1's row 129,
  // block 3 sits at 512 (expert 0's tile) + 512 (row tile 1) + (129 % 32)*16 + 0*4 + 3 = 1043.
  const Recipe recipe = Recipe::nvfp4_te();
  QuantizeOptions opt;
  opt.scale_layout = ScaleLayout::kSwizzled128x4;
  opt.group_counts = {3, 130};
  const std::vector<float> x = ramp(133 * 64);
  const QuantizedActivations q = quantize_activations(recipe, x, 133, 64, opt);
  std::vector<std::uint8_t> bad = q.scales;
  bad[1043] = static_cast<std::uint8_t>(bad[1043] + 1);
  const Report r = compare(scale_spec(recipe, q), q.scales, bad, scale_context(q));
  ASSERT_EQ(r.mismatch_count, 1u) << r;
  EXPECT_EQ(r.listed[0].coord, (std::array<std::size_t, 3>{1, 129, 3}));
  EXPECT_NE(r.text().find("expert 1, row 129, block 3 (byte 1043)"), std::string::npos) << r;
}

TEST(CheckQuantize, PlantedTieFlipIsExplained) {
  // MXFP4, ocp rule: a block with amax 6 gets X = floor(log2 6) - 2 = 0, scale 2^0, so element
  // 2.5 is prescaled to exactly 2.5, the midpoint of E2M1 2 (0x4) and 3 (0x5); RNE stores 0x4.
  // A candidate that rounds half away from zero stores 0x5: a tie flip.
  const Recipe recipe = Recipe::mxfp4_ocp();
  std::vector<float> x(32, 0.0f);
  x[0] = 6.0f;
  x[5] = 2.5f;
  const QuantizedActivations q = quantize_activations(recipe, x, 1, 32);
  ASSERT_EQ(q.prescaled[5], 2.5f);                    // precondition of the scenario
  ASSERT_EQ(q.elements[2] >> 4, 0x4);                 // element 5: byte 2, high nibble
  std::vector<std::uint8_t> candidate = q.elements;
  candidate[2] = static_cast<std::uint8_t>((candidate[2] & 0x0F) | 0x50);
  const std::vector<std::uint32_t> bits = input_bits_of(std::span<const float>(x));
  const Report r = compare(element_spec(q), q.elements, candidate, element_context(recipe, q, bits));
  ASSERT_EQ(r.mismatch_count, 1u) << r;
  EXPECT_EQ(r.listed[0].cls, MismatchClass::kTieFlip) << r;
  EXPECT_EQ(r.listed[0].coord, (std::array<std::size_t, 3>{0, 0, 5}));
  EXPECT_EQ(r.listed[0].block_amax, 6.0f);
  EXPECT_NE(r.text().find("input 0x40200000 (2.5)"), std::string::npos) << r;
}

}  // namespace
}  // namespace mxv::check
