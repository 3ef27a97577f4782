// The all-inputs accuracy sweep of the portable fp32 exp (reference/src/portable_exp.cpp;
// docs/semantics.md section 7.1), label exhaustive: every fp32 bit pattern against the correctly
// rounded exp, pinning the maximum error recorded in portable_exp.h and BENCHMARKS.md
// ("swiglu, portable exp"). The fast strided sample is in portable_exp_test.cpp.
#include "mxv/reference/portable_exp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>

namespace mxv {
namespace {

// Every fp32 bit pattern (2^32, two threads; about 150 s of CPU, 80 s on two idle cores). Pins the maximum error
// and the count of results that are not correctly rounded, as measured for BENCHMARKS.md.
TEST(PortableExpExhaustive, AllInputsPinnedUlp) {
  const ExpErrorReport rep = measure_exp_error(&portable_exp, 1, 2);
  std::printf("all fp32: %llu non-NaN inputs; by ulp:", static_cast<unsigned long long>(rep.inputs));
  for (std::uint64_t c : rep.count_by_ulp) std::printf(" %llu", static_cast<unsigned long long>(c));
  std::printf("; max %llu ulp at %a, max real error %.6f ulp\n",
              static_cast<unsigned long long>(rep.max_ulp), static_cast<double>(rep.worst_input),
              rep.max_error_ulp);
  EXPECT_EQ(rep.max_ulp, kPortableExpMaxUlp);
  // Measured (BENCHMARKS.md): every other result is correctly rounded. A change to the
  // algorithm or its constants shows up here even when the maximum stays at 1 ulp.
  EXPECT_EQ(rep.count_by_ulp[1], 10'101'876u);
  EXPECT_EQ(rep.nan_mismatches, 0u);
  EXPECT_EQ(rep.inputs, (std::uint64_t{1} << 32) - 2 * ((std::uint64_t{1} << 23) - 1));
}

}  // namespace
}  // namespace mxv
