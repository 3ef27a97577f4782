// Tests of the check library's reports (report.cpp) and its GoogleTest glue
// (gtest.h): the text names coordinates, input bits, codes and classes; the summary is one
// line; the JSON carries the same facts; a failing report fails a test with its text.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "mxv/check/check.h"
#include "mxv/check/gtest.h"
#include "mxv/test_support/contains.h"

namespace mxv::check {
namespace {

using Bytes = std::vector<std::uint8_t>;

// A 128-row swizzled UE4M3 scale buffer (K = 128, NVFP4: 8 blocks per row) whose block (5, 2),
// byte 82, holds 0x38 in the model and 0x39 in the candidate, with its pre-rounding scale on the
// 1.0 / 1.125 midpoint: a tie flip.
Report tie_flip_report() {
  const OutputSpec spec = OutputSpec::scales("block_scales", CodeKind::kUE4M3, 128, 8, Layout::kSwizzled128x4);
  Bytes e(1024, 0x30);
  Bytes a = e;
  e[82] = 0x38;
  a[82] = 0x39;
  std::vector<float> pre(128 * 8, 0.5f);
  pre[5 * 8 + 2] = 1.0625f;
  Context ctx;  // views `pre`; compare() copies what it reports, so the report outlives it
  ctx.pre_rounding = pre;
  return compare(spec, e, a, ctx);
}

TEST(CheckReport, TextNamesCoordinatesCodesAndClass) {
  const Report r = tie_flip_report();
  ASSERT_EQ(r.mismatch_count, 1u);
  const std::string text = r.text();
  // "1 tie-flip: ": the class count with its meaning.
  EXPECT_TRUE(test_support::contains_all(text, {
      "row 5, block 2", "byte 82", "expected 0x38 (1)", "actual 0x39 (1.125)", "tie-flip", "midpoint 1.0625",
      "1 tie-flip: "}));
  std::ostringstream os;
  os << r;
  EXPECT_EQ(os.str(), text);
}

TEST(CheckReport, SummaryIsOneLine) {
  const Report r = tie_flip_report();
  const std::string s = r.summary();
  EXPECT_EQ(s.find('\n'), std::string::npos);
  EXPECT_EQ(s.rfind("block_scales (ue4m3, swizzled-128x4, [1 x 128 x 8]): 1 mismatch in 1024 bytes (1 tie-flip)", 0), 0u) << s;
  const Report ok = compare(OutputSpec::scalar("amax"), Bytes{0, 0, 0x80, 0x3F}, Bytes{0, 0, 0x80, 0x3F});
  EXPECT_EQ(ok.summary(), "amax (fp32, row-major, [1 x 1 x 1]): ok, 4 bytes byte-exact");
}

TEST(CheckReport, TextShowsInputBitsAndBlockContext) {
  const std::vector<std::uint32_t> input = {0x40200000u, 0x3F800000u};
  const std::vector<float> pre = {2.5f, 1.0f};
  const std::vector<float> amax = {2.5f};
  const std::vector<float> scale = {1.0f};
  const Context ctx{InputKind::kFp32, input, pre, 2, amax, scale};
  const Report r = compare(OutputSpec::packed_e2m1("q", 1, 2), Bytes{0x24}, Bytes{0x25}, ctx);
  const std::string text = r.text();
  EXPECT_TRUE(test_support::contains_all(text, {
      "row 0, col 0 (byte 0 low nibble)", "input 0x40200000 (2.5)", "pre-rounding 2.5", "block amax 2.5",
      "expected 0x4 (2), actual 0x5 (3)"}));
}

TEST(CheckReport, PermutationAndGuardAndScaleDetails) {
  const Bytes e = {0x70, 0x71, 0x72, 0x73};
  const Report perm = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 2, 2, Layout::kRowMajor), e, Bytes{0x72, 0x73, 0x70, 0x71});
  EXPECT_NE(perm.text().find("this value belongs at row 1, block 0 (byte 2)"), std::string::npos) << perm;
  const Report off = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 1, Layout::kRowMajor), Bytes{0x7C}, Bytes{0x7D});
  EXPECT_NE(off.text().find("expected 0x7c (2^-3), actual 0x7d (2^-2); off by +1 binade"), std::string::npos) << off;
  Options o;
  o.guard_after = 2;
  o.guard_fill = 0xCD;
  const Report oob = compare(OutputSpec::scales("sf", CodeKind::kE8M0, 1, 1, Layout::kRowMajor), Bytes{0x7C}, Bytes{0x7C, 0xCD, 0x00}, {}, o);
  EXPECT_NE(oob.text().find("guard byte 1 after the output (byte 2)"), std::string::npos) << oob;
}

TEST(CheckReport, JsonCarriesCountsAndFirstMismatch) {
  const std::string j = tie_flip_report().json();
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.back(), '}');
  EXPECT_TRUE(test_support::contains_all(j, {
      "\"ok\":false", "\"mismatches\":1", "\"tie-flip\":1", "\"other\":0", "\"coord\":[0,5,2]", "\"byte_offset\":82",
      "\"expected\":56,\"actual\":57", "\"pre_rounding\":1.0625"}));
}

TEST(CheckReport, JsonWritesNonFiniteNumbersAsStrings) {
  const Report r = compare(OutputSpec::tensor("x", CodeKind::kE4M3, 1, 1), Bytes{0x7E}, Bytes{0x7F});
  const std::string j = r.json();
  EXPECT_NE(j.find("\"actual_value\":\"NaN\""), std::string::npos) << j;
  EXPECT_NE(j.find("\"nan-policy\":1"), std::string::npos) << j;
}

TEST(CheckReport, EveryClassHasANameAndMeaning) {
  for (std::size_t c = 0; c < kMismatchClassCount; ++c) {
    const auto cls = static_cast<MismatchClass>(c);
    EXPECT_FALSE(to_string(cls).empty());
    EXPECT_GT(describe(cls).size(), 20u);
  }
  EXPECT_EQ(to_string(MismatchClass::kNibbleSwap), "nibble-swap");
  EXPECT_EQ(to_string(MismatchClass::kOther), "other");
}

TEST(CheckGtest, FailingReportFailsTheTestWithItsText) {
  const Report r = tie_flip_report();
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(matches(r)), "tie-flip at row 5, block 2 (byte 82)");
  EXPECT_NONFATAL_FAILURE(EXPECT_PRED_FORMAT1(ByteExact, r), "r is not byte-exact");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(r.ok()) << r, "expected 0x38 (1), actual 0x39 (1.125)");
}

TEST(CheckGtest, MatchingOutputsPass) {
  const Bytes q = {0x21, 0x43};
  EXPECT_TRUE(matches(compare(OutputSpec::packed_e2m1("q", 1, 4), q, q)));
  MXV_EXPECT_BYTE_EXACT(OutputSpec::packed_e2m1("q", 1, 4), q, q);
}

}  // namespace
}  // namespace mxv::check
