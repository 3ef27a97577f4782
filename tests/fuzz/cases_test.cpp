// Tests of the case generators (fuzz/cases.h): over many samples at full size they reach both sides
// of every gate and tile edge they promise (quantize's vector gate, >1 row tile AND >1 column tile
// swizzled, grouped counts off 128 with empty experts; dequantize's tiled gate and both packings;
// interleaved:G for every G dividing I; odd and even N), the smallest size gives the smallest call,
// and materialize() supplies inputs of the call's size.
#include "mxv/fuzz/cases.h"

#include <gtest/gtest.h>

#include <set>

namespace mxv::fuzz {
namespace {

template <class T>
std::vector<T> sample(const rc::Gen<T>& g, int count, int size) {
  std::vector<T> out;
  for (int i = 0; i < count; ++i) out.push_back(g(rc::Random(static_cast<std::uint64_t>(i) * 7919u + 1u), size).value());
  return out;
}

TEST(QuantizeCases, ReachEveryGateAndTileEdge) {
  bool vector = false, scalar = false, multi_tile_swz = false, empty_expert = false, off_128 = false, row1 = false;
  std::set<std::string> presets;
  for (const FuzzCase& c : sample(gen_quantize_case(), 600, 100)) {
    const auto& v = c.call;
    const std::int64_t block = Recipe::by_name(v.preset).block_size;
    presets.insert(v.preset);
    (v.cols % block == 0 ? vector : scalar) = true;
    const std::int64_t kb = (v.cols + block - 1) / block;
    multi_tile_swz |= v.swizzled && v.rows > 128 && kb > 4 && v.groups.empty();
    for (const auto g : v.groups) {
      empty_expert |= g == 0;
      off_128 |= g % 128 != 0;
    }
    row1 |= v.rows == 1;
    EXPECT_EQ(v.expect_variant, v.cols % block == 0 ? "quantize_vector" : "quantize_scalar");
  }
  EXPECT_TRUE(vector && scalar && multi_tile_swz && empty_expert && off_128 && row1);
  EXPECT_EQ(presets.size(), golden::supported_presets(golden::VerifyKernel::kQuantize).size());
}

TEST(DequantizeCases, ReachBothSidesOfTheTiledGate) {
  bool tiled = false, scalar = false, n_packed = false, odd_n = false;
  for (const FuzzCase& c : sample(gen_dequantize_case(), 400, 100)) {
    const auto& v = c.call;
    (v.expect_variant == "dequantize_tiled" ? tiled : scalar) = true;
    n_packed |= v.n_packed;
    odd_n |= v.rows % 2 == 1;
    if (v.n_packed) {
      EXPECT_EQ(v.rows % 2, 0);
    } else {
      EXPECT_EQ(v.cols % 2, 0);
    }
  }
  EXPECT_TRUE(tiled && scalar && n_packed && odd_n);
}

TEST(SwigluCases, InterleaveEveryAcceptedDivisorOfI) {
  std::set<std::string> layouts_for_64;
  for (const FuzzCase& c : sample(gen_swiglu_case(), 1500, 100)) {
    if (c.call.cols == 64) layouts_for_64.insert(c.call.gate_up_layout);
  }
  EXPECT_EQ(layouts_for_64, (std::set<std::string>{"halves", "interleaved:1", "interleaved:2", "interleaved:4",
                                                   "interleaved:8", "interleaved:16", "interleaved:32", "interleaved:64"}));
}

TEST(Cases, SmallestSizeGivesTheSmallestShapes) {
  for (const FuzzCase& c : sample(gen_quantize_case(), 50, 0)) {
    if (c.call.groups.empty()) {
      EXPECT_EQ(c.call.rows, 1);
    }
    EXPECT_LE(c.call.cols, 2 * 32);
  }
}

TEST(Cases, MaterializeSuppliesInputsOfTheCallSize) {
  for (const FuzzCase& c : sample(gen_quantize_case(), 20, 50)) {
    const golden::VerifyCase v = materialize(c);
    ASSERT_TRUE(v.inputs);
    EXPECT_EQ(v.inputs->values.size(), static_cast<std::size_t>(v.rows * v.cols)) << c.describe();
  }
  for (const FuzzCase& c : sample(gen_swiglu_case(), 20, 50)) {
    EXPECT_EQ(materialize(c).inputs->values.size(), static_cast<std::size_t>(c.call.rows * 2 * c.call.cols));
  }
  for (const FuzzCase& c : sample(gen_dequantize_case(), 20, 50)) {
    const auto& w = materialize(c).inputs->weights;
    EXPECT_EQ(w.packed.size(), static_cast<std::size_t>(c.call.experts * c.call.rows * c.call.cols / 2));
  }
}

}  // namespace
}  // namespace mxv::fuzz
