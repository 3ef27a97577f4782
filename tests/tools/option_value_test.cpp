// Tests of option values (tools/include/mxv/io/option_value.h): integers in a range, counts,
// real scale parameters (finite, sign rules), and the "does not apply" refusal.
#include "mxv/io/option_value.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "mxv/test_support/refusal.h"

namespace mxv::io {
namespace {

using test_support::refusal;

TEST(ParseIntOption, WholeIntegersInRange) {
  EXPECT_EQ(parse_int_option("--x", "42", 0, 100), 42);
  EXPECT_EQ(refusal([] { parse_int_option("--x", "42a", 0, 100); }), "--x: '42a' is not an integer");
  EXPECT_EQ(refusal([] { parse_int_option("--x", "-1", 0, 100); }), "--x: '-1' is outside [0, 100]");
  EXPECT_EQ(refusal([] { parse_int_option("--x", "", 0, 100); }), "--x: '' is not an integer");
  EXPECT_EQ(refusal([] { parse_int_option("--x", "99999999999999999999", 0, 100); }),
            "--x: '99999999999999999999' is outside [0, 100]");
  EXPECT_EQ(refusal([] { parse_int_option("--x", " 4", 0, 100); }), "--x: ' 4' is not an integer");
}

TEST(ParseUint64Option, SeedsUpTo2To64) {
  EXPECT_EQ(parse_uint64_option("--seed", "18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(parse_uint64_option("--seed", "0"), 0u);
  EXPECT_EQ(refusal([] { parse_uint64_option("--seed", "-1"); }), "--seed: '-1' is not a whole number >= 0");
  EXPECT_EQ(refusal([] { parse_uint64_option("--seed", "18446744073709551616"); }),
            "--seed: '18446744073709551616' is outside [0, 2^64 - 1]");
  EXPECT_EQ(refusal([] { parse_uint64_option("--seed", "1e3"); }), "--seed: '1e3' is not a whole number >= 0");
}

TEST(ParseCountsOption, CommaSeparated) {
  EXPECT_EQ(parse_counts_option("--c", "3,0,130"), (std::vector<std::int64_t>{3, 0, 130}));
  EXPECT_EQ(refusal([] { parse_counts_option("--c", "3,,1"); }), "--c: '' is not an integer");
  EXPECT_EQ(refusal([] { parse_counts_option("--c", "3,-1"); }), "--c: '-1' is outside [0, 1099511627776]");
}

TEST(ParseRealOption, FiniteWithSignRules) {
  EXPECT_EQ(parse_real_option("--a", "2688", RealRule::kFiniteNonNegative), 2688.0f);
  EXPECT_EQ(parse_real_option("--a", "0", RealRule::kFiniteNonNegative), 0.0f);
  EXPECT_EQ(parse_real_option("--a", "1.5e-3", RealRule::kFinitePositive), 1.5e-3f);
  EXPECT_EQ(refusal([] { parse_real_option("--a", "-1", RealRule::kFiniteNonNegative); }),
            "--a: '-1' is negative; it must be >= 0");
  EXPECT_EQ(refusal([] { parse_real_option("--a", "-0", RealRule::kFiniteNonNegative); }),
            "--a: '-0' is negative; it must be >= 0");
  EXPECT_EQ(refusal([] { parse_real_option("--a", "0", RealRule::kFinitePositive); }), "--a: '0' must be > 0");
  for (const char* text : {"nan", "NaN", "inf", "-inf", "infinity"}) {
    EXPECT_NE(refusal([&] { parse_real_option("--a", text, RealRule::kFiniteNonNegative); }).find("is not finite"),
              std::string::npos)
        << text;
  }
  EXPECT_EQ(refusal([] { parse_real_option("--a", "1e39", RealRule::kFiniteNonNegative); }),
            "--a: '1e39' is outside the fp32 range");
  EXPECT_EQ(refusal([] { parse_real_option("--a", "1.5x", RealRule::kFiniteNonNegative); }), "--a: '1.5x' is not a number");
}

TEST(RejectIfGiven, NamesTheOptionAndWhy) {
  EXPECT_EQ(refusal([] { reject_if_given(false, "--x", "to y"); }), "");
  EXPECT_EQ(refusal([] { reject_if_given(true, "--x", "to y"); }), "--x: does not apply to y");
}

}  // namespace
}  // namespace mxv::io
