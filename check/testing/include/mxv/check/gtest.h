// GoogleTest glue for the check library (docs/design.md section 3.6, "A mismatch is explained": every test failure
// message comes from the check report). For test programs only: it is the target
// mxv::check_gtest, which no library links.
//
//   EXPECT_TRUE(mxv::check::matches(report));          // failure message: report.text()
//   EXPECT_PRED_FORMAT1(mxv::check::ByteExact, report); // same, naming the expression
//   MXV_EXPECT_BYTE_EXACT(spec, model_bytes, kernel_bytes, context, options);
//   EXPECT_TRUE(report.ok()) << report;                  // plain form, also prints report.text()
#pragma once

#include <gtest/gtest.h>

#include "mxv/check/check.h"

namespace mxv::check {

/// Success when the report found no mismatch; otherwise a failure carrying the full text.
inline ::testing::AssertionResult matches(const Report& report) {
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.text();
}

/// Predicate formatter for EXPECT_PRED_FORMAT1 / ASSERT_PRED_FORMAT1.
inline ::testing::AssertionResult ByteExact(const char* expression, const Report& report) {
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << expression << " is not byte-exact:\n" << report.text();
}

}  // namespace mxv::check

/// Compare and expect byte-exact in one line; the arguments are those of mxv::check::compare.
#define MXV_EXPECT_BYTE_EXACT(...) EXPECT_PRED_FORMAT1(::mxv::check::ByteExact, ::mxv::check::compare(__VA_ARGS__))
#define MXV_ASSERT_BYTE_EXACT(...) ASSERT_PRED_FORMAT1(::mxv::check::ByteExact, ::mxv::check::compare(__VA_ARGS__))
