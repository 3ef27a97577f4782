// Tests of the JSON writer (tools/include/mxv/io/json_writer.h): escapes from RFC 8259 written
// out by hand, commas and nesting, one-line and per-line layouts, non-finite numbers as strings.
#include "mxv/io/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mxv::io {
namespace {

TEST(JsonQuote, EscapesQuoteBackslashAndControlCharacters) {
  EXPECT_EQ(json_quote("plain"), "\"plain\"");
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("\n\t\r"), "\"\\n\\t\\r\"");
  EXPECT_EQ(json_quote(std::string_view("\x01\x1f", 2)), "\"\\u0001\\u001f\"");
  EXPECT_EQ(json_quote("\xc3\xa9"), "\"\xc3\xa9\"");  // UTF-8 passes through
}

TEST(JsonNumber, ShortestRoundTripAndNonFiniteAsStrings) {
  EXPECT_EQ(json_number(1.0625), "1.0625");
  EXPECT_EQ(json_number(0.1), "0.1");
  EXPECT_EQ(json_number(-0.0), "-0");
  EXPECT_EQ(json_number(std::numeric_limits<double>::quiet_NaN()), "\"NaN\"");
  EXPECT_EQ(json_number(std::numeric_limits<double>::infinity()), "\"+Inf\"");
  EXPECT_EQ(json_number(-std::numeric_limits<double>::infinity()), "\"-Inf\"");
}

TEST(JsonWriter, OneLineLayout) {
  std::ostringstream os;
  JsonWriter j(os);
  j.begin_object().key("a").value(1).key("b").begin_array().value(true).value("x").null().end_array();
  j.key("c").begin_object().end_object().end_object();
  EXPECT_EQ(os.str(), "{\"a\":1,\"b\":[true,\"x\",null],\"c\":{}}");
}

TEST(JsonWriter, OneRecordPerLineBelowLineDepth) {
  std::ostringstream os;
  JsonWriter j(os, 2);
  j.begin_object().key("n").value(std::uint64_t{2}).key("cases").begin_array();
  j.begin_object().key("k").value("q").key("s").value(0.5).end_object();
  j.begin_object().key("k").value("d").end_object();
  j.end_array().end_object();
  EXPECT_EQ(os.str(),
            "{\n"
            "  \"n\": 2,\n"
            "  \"cases\": [\n"
            "    {\"k\": \"q\", \"s\": 0.5},\n"
            "    {\"k\": \"d\"}\n"
            "  ]\n"
            "}\n");
}

TEST(JsonWriter, MisuseIsAProgrammingError) {
  std::ostringstream os;
  JsonWriter j(os);
  j.begin_object();
  EXPECT_THROW(j.value(1), std::logic_error);  // a value without a key
  JsonWriter k(os);
  EXPECT_THROW(k.end_array(), std::logic_error);
}

}  // namespace
}  // namespace mxv::io
