// Tests of SizeProduct (tools/include/mxv/io/checked_size.h): products up to 2^63 - 1 pass,
// one past overflows with the factors named; the dequantize shapes that once wrapped around.
#include "mxv/io/checked_size.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace mxv::io {
namespace {

TEST(SizeProduct, ExactProductsAndCeilDivision) {
  EXPECT_EQ(SizeProduct("x").times(3).times(5).value(), 15);
  EXPECT_EQ(SizeProduct("x").times(7).ceil_div(2).value(), 4);
  EXPECT_EQ(SizeProduct("x").times(0).times(std::int64_t{1} << 62).value(), 0);
  // 2^31 * (2^32 - 1) * 2... is still below 2^63.
  EXPECT_EQ(SizeProduct("x").times(std::int64_t{1} << 31).times(std::int64_t{1} << 31).value(), std::int64_t{1} << 62);
  EXPECT_EQ(SizeProduct("x").times(std::numeric_limits<std::int64_t>::max()).value(),
            std::numeric_limits<std::int64_t>::max());
}

TEST(SizeProduct, OverflowNamesTheFactors) {
  try {
    SizeProduct("--elements bytes").times(std::int64_t{1} << 20, "--experts").times(std::int64_t{1} << 32, "--rows")
        .times(std::int64_t{1} << 32, "--cols");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "--elements bytes: --experts 1048576 x --rows 4294967296 x --cols 4294967296 does not fit (limit "
              "9223372036854775807, 2^63 - 1)");
  }
  // One past the limit: 2^32 * 2^31 = 2^63.
  EXPECT_THROW(SizeProduct("x").times(std::int64_t{1} << 32).times(std::int64_t{1} << 31), std::invalid_argument);
  EXPECT_THROW(SizeProduct("x").times(-1), std::invalid_argument);
}

}  // namespace
}  // namespace mxv::io
