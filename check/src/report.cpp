// The check library's reports (docs/design.md section 3.6, "A mismatch is explained"): a one-line
// summary that a GoogleTest failure message can carry, a readable text (class counts with meanings,
// the first mismatches with coordinates, input bits, expected and actual codes and why), and a JSON
// object for tools (`mxv golden check`). JSON numbers that are not finite are written as strings.
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>

#include "mxv/check/check.h"
#include "mxv/check/independent_decoder.h"
#include "mxv/io/enum_names.h"
#include "mxv/io/json_writer.h"

namespace mxv::check {
namespace {

struct ClassInfo {
  std::string_view name;
  std::string_view meaning;
};

// Indexed by MismatchClass; the order is the precedence (check.h).
constexpr ClassInfo kClasses[kMismatchClassCount] = {
    {"out-of-bounds", "a guard (red-zone) byte around the output changed: a write out of bounds"},
    {"nonzero-padding", "a layout padding slot is not zero: stale or unwritten padding"},
    {"never-written", "the sentinel the output was filled with survived: the element was never written"},
    {"nibble-swap", "the two E2M1 nibbles of a byte are exchanged (element 2i belongs in bits [3:0])"},
    {"layout-permutation", "the value belongs at another index: an offset, stride or swizzle is wrong"},
    {"nan-policy", "NaN handled differently: one side NaN, NaN codes differ, or a NaN input/amax mapped differently"},
    {"sign-of-zero", "both zero with different signs (+0 vs -0 codes)"},
    {"tie-flip", "the pre-rounding value is exactly the midpoint of the two codes: a different tie rule"},
    {"boundary-flip", "adjacent codes, pre-rounding value within the stated ulps of their midpoint: a different operation order"},
    {"scale-off-binades", "the value is off by exactly 2^k (E8M0 codes differ by k; a wide value off by a power of two)"},
    {"scale-off-codes", "the UE4M3 scale codes differ by k"},
    {"other", "none of the above explains the difference"},
};

std::string hex(std::uint32_t v, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%0*x", digits, v);
  return buf;
}

// Built by appending: GCC 12 at -O3 warns falsely (-Wrestrict) on `"literal" + std::string`.
std::string signed_count(int k, std::string_view unit) {
  std::string out = k > 0 ? "+" : "";
  out.append(std::to_string(k)).append(" ").append(unit);
  if (k != 1 && k != -1) out.append("s");
  return out;
}

std::string coord_text(const OutputSpec& spec, const std::array<std::size_t, 3>& c) {
  std::string out;
  const bool show_batch = spec.batches > 1 || !spec.group_rows.empty();
  for (std::size_t i = show_batch ? 0 : 1; i < 3; ++i) {
    if (!out.empty()) out += ", ";
    out += spec.axes[i] + " " + std::to_string(c[i]);
  }
  return out;
}

std::string where_text(const Report& r, const Mismatch& m) {
  std::string byte = "byte " + std::to_string(m.byte_offset) +
                     (m.nibble == 0 ? " low nibble" : m.nibble == 1 ? " high nibble" : "");
  switch (m.region) {
    case Region::kGuardBefore:
      return "guard byte " + std::to_string(-m.byte_offset) + " before the output";
    case Region::kGuardAfter:
      return "guard byte " + std::to_string(m.byte_offset - static_cast<std::int64_t>(storage_bytes(r.spec))) +
             " after the output (" + byte + ")";
    case Region::kPadding: return "padding (" + byte + ")";
    case Region::kData: break;
  }
  return coord_text(r.spec, m.coord) + " (" + byte + ")";
}

// What makes this mismatch its class, in words.
std::string why_text(const Report& r, const Mismatch& m) {
  const CodeKind kind = r.spec.kind;
  switch (m.cls) {
    case MismatchClass::kOutOfBounds:
    case MismatchClass::kNonzeroPadding:
    case MismatchClass::kNeverWritten:
    case MismatchClass::kNibbleSwap:
    case MismatchClass::kSignOfZero:
    case MismatchClass::kNanPolicy: return "";
    case MismatchClass::kLayoutPermutation:
      if (!m.found_at) return "";
      return "this value belongs at " + coord_text(r.spec, *m.found_at) + " (byte " + std::to_string(m.found_byte_offset) + ")";
    case MismatchClass::kTieFlip:
    case MismatchClass::kBoundaryFlip: {
      const double mid = (code_value(kind, m.expected) + code_value(kind, m.actual)) / 2;
      if (m.cls == MismatchClass::kTieFlip) return "pre-rounding value is exactly the midpoint " + format_float(mid);
      return "pre-rounding value is " + std::to_string(m.k < 0 ? -m.k : m.k) + " ulp(s) " +
             (m.k < 0 ? "below" : "above") + " the midpoint " + format_float(mid);
    }
    case MismatchClass::kScaleOffBinades: return "off by " + signed_count(m.k, "binade");
    case MismatchClass::kScaleOffCodes: return "off by " + signed_count(m.k, "code");
    case MismatchClass::kOther: break;
  }
  if (kind == CodeKind::kBf16 || kind == CodeKind::kFp16 || kind == CodeKind::kFp32) {
    const double e = code_value(kind, m.expected), a = code_value(kind, m.actual);
    if (a == 0 && e != 0 && std::fabs(e) < 0x1p-14) return "actual is zero where a tiny value was expected: flush to zero?";
    if (kind == CodeKind::kFp32 && std::isfinite(e) && std::isfinite(a)) {
      return std::to_string(fp32_ulp_distance(static_cast<float>(e), static_cast<float>(a))) + " ulp(s) apart";
    }
  }
  return "";
}

std::string value_of(const Report& r, const Mismatch& m, std::uint32_t code) {
  if (m.region == Region::kGuardBefore || m.region == Region::kGuardAfter) return hex(code, 2);
  return format_code(r.spec.kind, code);
}

std::string shape_text(const OutputSpec& s) {
  std::string rows = s.group_rows.empty() ? std::to_string(s.rows) : "grouped";
  return std::string(to_string(s.kind)) + ", " + std::string(to_string(s.layout)) + ", [" +
         std::to_string(s.batches) + " x " + rows + " x " + std::to_string(s.cols) + "]";
}

std::string counts_inline(const Report& r) {
  std::string out;
  for (std::size_t c = 0; c < kMismatchClassCount; ++c) {
    if (r.counts[c] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(r.counts[c]) + " " + std::string(kClasses[c].name);
  }
  return out;
}

std::string mismatch_line(const Report& r, const Mismatch& m) {
  std::string line = std::string(to_string(m.cls)) + " at " + where_text(r, m) + ": expected " +
                     value_of(r, m, m.expected) + ", actual " + value_of(r, m, m.actual);
  if (m.input_bits) line += "; input " + format_input(r.input_kind, *m.input_bits);
  if (m.pre_rounding) line += "; pre-rounding " + format_float(*m.pre_rounding);
  if (m.block_amax) line += "; block amax " + format_float(*m.block_amax);
  if (m.block_scale) line += "; block scale " + format_float(*m.block_scale);
  const std::string why = why_text(r, m);
  if (!why.empty()) line += "; " + why;
  return line;
}

// JSON text through the project's one writer (tools/include/mxv/io/json_writer.h).
std::string json_string(std::string_view s) { return io::json_quote(s); }
std::string json_number(double v) { return io::json_number(v); }

std::string json_coord(const std::array<std::size_t, 3>& c) {
  std::string out = "[";
  out.append(std::to_string(c[0])).append(",").append(std::to_string(c[1])).append(",");
  return out.append(std::to_string(c[2])).append("]");
}

}  // namespace

std::string_view to_string(Region r) {
  return io::enum_name(r, {"guard-before", "data", "padding", "guard-after"});
}

std::string_view to_string(MismatchClass c) { return kClasses[static_cast<std::size_t>(c)].name; }
std::string_view describe(MismatchClass c) { return kClasses[static_cast<std::size_t>(c)].meaning; }

std::string Report::summary() const {
  std::string head = spec.name + " (" + shape_text(spec) + "): ";
  if (ok()) return head + "ok, " + std::to_string(bytes_compared) + " bytes byte-exact";
  std::string out = head + std::to_string(mismatch_count) + " mismatch" + (mismatch_count == 1 ? "" : "es") +
                    " in " + std::to_string(bytes_compared) + " bytes (" + counts_inline(*this) + ")";
  if (!listed.empty()) out += "; first: " + mismatch_line(*this, listed.front());
  return out;
}

std::string Report::text() const {
  std::ostringstream os;
  os << summary() << "\n";
  if (ok()) return os.str();
  os << "  compared " << bytes_compared << " bytes, " << elements_compared << " elements\n";
  os << "  classes:\n";
  for (std::size_t c = 0; c < kMismatchClassCount; ++c) {
    if (counts[c] == 0) continue;
    os << "    " << counts[c] << " " << kClasses[c].name << ": " << kClasses[c].meaning << "\n";
  }
  os << "  first " << listed.size() << " of " << mismatch_count << ":\n";
  for (std::size_t i = 0; i < listed.size(); ++i) {
    os << "    #" << (i + 1) << " " << mismatch_line(*this, listed[i]) << "\n";
  }
  return os.str();
}

std::string Report::json() const {
  std::ostringstream os;
  os << "{\"name\":" << json_string(spec.name) << ",\"kind\":" << json_string(to_string(spec.kind))
     << ",\"layout\":" << json_string(to_string(spec.layout)) << ",\"ok\":" << (ok() ? "true" : "false")
     << ",\"bytes_compared\":" << bytes_compared << ",\"elements_compared\":" << elements_compared
     << ",\"mismatches\":" << mismatch_count << ",\"counts\":{";
  for (std::size_t c = 0; c < kMismatchClassCount; ++c) {
    os << (c ? "," : "") << json_string(kClasses[c].name) << ":" << counts[c];
  }
  os << "},\"listed\":[";
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const Mismatch& m = listed[i];
    os << (i ? "," : "") << "{\"class\":" << json_string(to_string(m.cls))
       << ",\"region\":" << json_string(to_string(m.region)) << ",\"byte_offset\":" << m.byte_offset;
    if (m.nibble >= 0) os << ",\"nibble\":" << m.nibble;
    if (m.region == Region::kData) os << ",\"coord\":" << json_coord(m.coord);
    os << ",\"expected\":" << m.expected << ",\"actual\":" << m.actual;
    if (m.region == Region::kData || m.region == Region::kPadding) {
      os << ",\"expected_value\":" << json_number(code_value(spec.kind, m.expected))
         << ",\"actual_value\":" << json_number(code_value(spec.kind, m.actual));
    }
    if (m.cls == MismatchClass::kScaleOffBinades || m.cls == MismatchClass::kScaleOffCodes ||
        m.cls == MismatchClass::kBoundaryFlip) {
      os << ",\"k\":" << m.k;
    }
    if (m.found_at) os << ",\"found_at\":" << json_coord(*m.found_at) << ",\"found_byte_offset\":" << m.found_byte_offset;
    if (m.input_bits) os << ",\"input_bits\":" << *m.input_bits;
    if (m.pre_rounding) os << ",\"pre_rounding\":" << json_number(*m.pre_rounding);
    if (m.block_amax) os << ",\"block_amax\":" << json_number(*m.block_amax);
    if (m.block_scale) os << ",\"block_scale\":" << json_number(*m.block_scale);
    os << "}";
  }
  os << "],\"summary\":" << json_string(summary()) << "}";
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Report& report) { return os << report.text(); }

}  // namespace mxv::check
