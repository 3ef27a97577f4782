// JsonWriter (json_writer.h). Escapes: quote, backslash and the control characters below 0x20
// (RFC 8259 section 7); other bytes pass through, so UTF-8 text stays UTF-8.
#include "mxv/io/json_writer.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace mxv::io {

std::string json_quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    switch (ch) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += kHex[u >> 4];
          out += kHex[u & 0xF];
        } else {
          out += ch;
        }
    }
  }
  out += '"';
  return out;
}

std::string json_number(double v) {
  if (std::isnan(v)) return "\"NaN\"";
  if (std::isinf(v)) return v > 0 ? "\"+Inf\"" : "\"-Inf\"";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

void JsonWriter::newline(std::size_t depth) {
  out_ << '\n';
  for (std::size_t i = 0; i < depth; ++i) out_ << "  ";
}

void JsonWriter::before_value() {
  if (levels_.empty()) return;
  Level& l = levels_.back();
  if (l.object) {
    if (!after_key_) throw std::logic_error("JsonWriter: a value inside an object needs a key first");
    after_key_ = false;
    return;
  }
  next_member(l);
}

void JsonWriter::next_member(Level& l) {
  if (!l.empty) out_ << ',';
  if (static_cast<int>(levels_.size()) <= line_depth_) {
    newline(levels_.size());
  } else if (!l.empty && line_depth_ > 0) {
    out_ << ' ';
  }
  l.empty = false;
}

JsonWriter& JsonWriter::open(char bracket, bool object) {
  before_value();
  out_ << bracket;
  levels_.push_back(Level{object});
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  if (levels_.empty()) throw std::logic_error("JsonWriter: closing more than was opened");
  const bool had_elements = !levels_.back().empty;
  levels_.pop_back();
  if (had_elements && static_cast<int>(levels_.size()) < line_depth_) newline(levels_.size());
  out_ << bracket;
  if (levels_.empty() && line_depth_ > 0) out_ << '\n';
  return *this;
}

JsonWriter& JsonWriter::begin_object() { return open('{', true); }
JsonWriter& JsonWriter::end_object() { return close('}'); }
JsonWriter& JsonWriter::begin_array() { return open('[', false); }
JsonWriter& JsonWriter::end_array() { return close(']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  if (levels_.empty() || !levels_.back().object || after_key_) throw std::logic_error("JsonWriter: key outside an object");
  next_member(levels_.back());
  out_ << json_quote(name) << (line_depth_ > 0 ? ": " : ":");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) { return raw(json_quote(s)); }
JsonWriter& JsonWriter::value(bool b) { return raw(b ? "true" : "false"); }
JsonWriter& JsonWriter::value(double v) { return raw(json_number(v)); }
JsonWriter& JsonWriter::value(std::int64_t v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::value(std::uint64_t v) { return raw(std::to_string(v)); }
JsonWriter& JsonWriter::null() { return raw("null"); }

JsonWriter& JsonWriter::raw(std::string_view text) {
  before_value();
  out_ << text;
  return *this;
}

}  // namespace mxv::io
