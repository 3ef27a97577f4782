// The consumer's test suite: run the toy kernel (row_scale_e4m3_kernel.h) on mxv's emulator with
// its checkers on, then hold its outputs byte for byte to a model built from mxv's reference
// encoder, through the check library's GoogleTest helper.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/emulation/emulator.h"
#include "mxv/reference/float_format.h"
#include "row_scale_e4m3_kernel.h"

namespace {

constexpr std::size_t kRows = 8;
constexpr std::size_t kCount = kRows * consumer::kRowLength;
constexpr std::uint64_t kSeed = 20261201;  // replay: the inputs are a pure function of it

struct Outputs {
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
  std::string findings;
};

std::vector<float> inputs() {
  std::mt19937_64 rng(kSeed);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> x(kCount);
  for (float& v : x) v = dist(rng);
  return x;
}

Outputs run_on_emulator(const std::vector<float>& x, bool plant_bug) {
  mxv::emu::Emulator emu;
  auto d_x = emu.alloc<float>(kCount, "x");
  emu.upload(d_x, std::span<const float>(x));
  auto d_codes = emu.alloc<std::uint8_t>(kCount, "codes");
  auto d_scales = emu.alloc<float>(kRows, "scales");
  emu.fill(d_codes, 0xA5);  // a sentinel: an unwritten code is reported as never-written
  consumer::RowScaleParams p{{d_x.raw}, d_codes, d_scales, kRows, plant_bug};
  emu.launch("row_scale_e4m3", {static_cast<unsigned>(kRows)}, {consumer::kRowLength}, 0,
             [&](mxv::emu::EmuCtx& ctx) { consumer::row_scale_e4m3_body(ctx, p); });
  Outputs out{std::vector<std::uint8_t>(kCount), std::vector<float>(kRows), {}};
  emu.download(std::span<std::uint8_t>(out.codes), d_codes);
  emu.download(std::span<float>(out.scales), d_scales);
  if (emu.finding_count() != 0) out.findings = emu.findings_report();
  return out;
}

// The model: the same arithmetic in plain C++, with mxv's reference E4M3 encoder (CUDA dialect,
// nearest-even, saturating) in place of the kernel's cvt.
Outputs model(const std::vector<float>& x) {
  Outputs out{std::vector<std::uint8_t>(kCount), std::vector<float>(kRows), {}};
  for (std::size_t r = 0; r < kRows; ++r) {
    float amax = 0.0f;
    for (std::size_t c = 0; c < consumer::kRowLength; ++c)
      amax = std::fmax(amax, std::fabs(x[r * consumer::kRowLength + c]));
    out.scales[r] = amax > 0.0f ? 448.0f / amax : 1.0f;
    for (std::size_t c = 0; c < consumer::kRowLength; ++c) {
      const std::size_t i = r * consumer::kRowLength + c;
      out.codes[i] = mxv::encode(mxv::kE4M3, x[i] * out.scales[r]);
    }
  }
  return out;
}

mxv::check::Report compare_codes(const Outputs& expected, const Outputs& actual) {
  const auto spec = mxv::check::OutputSpec::tensor("codes", mxv::check::CodeKind::kE4M3, kRows,
                                                   consumer::kRowLength);
  mxv::check::Options options;
  options.sentinel = 0xA5;
  return mxv::check::compare(spec, mxv::check::bytes_of(expected.codes),
                             mxv::check::bytes_of(actual.codes), {}, options);
}

TEST(RowScaleE4m3, MatchesTheReferenceByteForByteOnTheEmulator) {
  SCOPED_TRACE("inputs: std::normal_distribution(0, 3) from mt19937_64 seed " + std::to_string(kSeed));
  const auto x = inputs();
  const Outputs kernel = run_on_emulator(x, /*plant_bug=*/false);
  EXPECT_TRUE(kernel.findings.empty()) << kernel.findings;
  const Outputs expected = model(x);
  EXPECT_TRUE(mxv::check::matches(compare_codes(expected, kernel)));
  MXV_EXPECT_BYTE_EXACT(mxv::check::OutputSpec::tensor("scales", mxv::check::CodeKind::kFp32, kRows, 1),
                        mxv::check::bytes_of(expected.scales), mxv::check::bytes_of(kernel.scales));
}

// The check must be able to fail here too: a kernel that stores one code one step off is reported,
// with its coordinates.
TEST(RowScaleE4m3, PlantedOffByOneCodeIsReported) {
  const auto x = inputs();
  const Outputs kernel = run_on_emulator(x, /*plant_bug=*/true);
  const mxv::check::Report report = compare_codes(model(x), kernel);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.mismatch_count, 1u) << report;
  ASSERT_EQ(report.listed.size(), 1u);
  EXPECT_EQ(report.listed[0].coord[1], 0u);
  EXPECT_EQ(report.listed[0].coord[2], 5u);
  EXPECT_FALSE(mxv::check::matches(report));
}

}  // namespace
