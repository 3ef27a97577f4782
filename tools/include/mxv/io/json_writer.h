// The one JSON writer of the project (reports of the check library, `mxv verify --json`):
// strings escaped per RFC 8259, commas placed by the writer, numbers that are not finite
// written as the strings "NaN", "+Inf", "-Inf" (JSON has no such numbers; the check library's
// text reports spell them the same way).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::io {

/// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);
/// `v` as a JSON number (shortest text that reads back as the same double), or a string for a
/// NaN or an infinity.
std::string json_number(double v);

/// A streaming writer: begin_object/key/value/end_object and arrays nest freely. Containers
/// opened at a depth below `line_depth` put each element on its own indented line; deeper ones
/// stay on one line, so a list of records reads one record per line. With `line_depth` 0 the
/// whole value is one line without spaces.
class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& out, int line_depth = 0) : out_(out), line_depth_(line_depth) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  /// The next member's name (inside an object).
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double v);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(unsigned v) { return value(static_cast<std::uint64_t>(v)); }
  JsonWriter& value(long long v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(unsigned long long v) { return value(static_cast<std::uint64_t>(v)); }
  JsonWriter& null();
  /// Writes `text` as a value verbatim (an already-serialised JSON value).
  JsonWriter& raw(std::string_view text);

 private:
  struct Level {
    bool object;
    bool empty = true;
  };
  void before_value();
  /// Starts the next element of array `l` or member of object `l`: the comma after the one
  /// before, then its own line (shallow containers) or one space (deep ones, when indenting).
  void next_member(Level& l);
  JsonWriter& open(char bracket, bool object);
  JsonWriter& close(char bracket);
  void newline(std::size_t depth);
  std::ostream& out_;
  int line_depth_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace mxv::io
