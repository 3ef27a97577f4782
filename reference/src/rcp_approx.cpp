// rcp.approx.ftz.f32 from a captured 2-bit delta table (format in rcp_approx.h; the facts it
// relies on are docs/semantics.md section 4.6: +-1 ulp, significand-only dependence [hw, H200]).
#include "mxv/reference/rcp_approx.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "mxv/io/data_files.h"
#include "mxv/io/input_file.h"
#include "mxv/io/output_files.h"

namespace mxv {
namespace {

constexpr char kMagic[8] = {'M', 'X', 'V', 'R', 'C', 'P', 'A', '1'};
constexpr std::uint32_t kVersion = 1;

std::uint64_t fnv1a64(std::span<const std::uint8_t> bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const std::uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h;
}

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
void put_u64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
std::uint64_t get_u64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The sign and exponent handling shared by the table emulation and the exact reciprocal:
// returns true and sets `special` when x needs no significand work.
bool rcp_special(float x, float& special) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = u & 0x80000000u;
  const std::uint32_t mag = u & 0x7fffffffu;
  if (mag > 0x7f800000u) {
    special = std::bit_cast<float>(0x7fffffffu);  // canonical NaN
    return true;
  }
  if (mag == 0x7f800000u) {
    special = std::bit_cast<float>(sign);  // 1/Inf = 0
    return true;
  }
  if (mag < 0x00800000u) {
    special = std::bit_cast<float>(sign | 0x7f800000u);  // .ftz: subnormal or zero input -> Inf
    return true;
  }
  return false;
}

// 1/x for a normal x, split into the reciprocal of its significand (in (0.5, 1]) and a power of
// two; `delta` ulps are added to the significand's reciprocal, then the exponent is applied and
// results below the smallest normal are flushed (.ftz).
float rcp_with_delta(float x, int delta) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t sign = u & 0x80000000u;
  const int e = static_cast<int>((u >> 23) & 0xffu) - 127;
  const float m = std::bit_cast<float>(0x3f800000u | (u & 0x007fffffu));  // 1.significand
  const float r = 1.0f / m;                                              // correctly rounded
  const auto rb = static_cast<std::uint32_t>(static_cast<std::int64_t>(std::bit_cast<std::uint32_t>(r)) + delta);
  // rb is a normal value near 2^-1 or 2^0; scale by 2^-e through the exponent field.
  const int re = static_cast<int>((rb >> 23) & 0xffu) - e;
  if (re <= 0) return std::bit_cast<float>(sign);  // below 2^-126: flush to signed zero
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(re) << 23) | (rb & 0x007fffffu));
}

}  // namespace

RcpApproxTable RcpApproxTable::from_deltas(std::span<const std::int8_t> deltas) {
  if (deltas.size() != kEntries) {
    throw std::invalid_argument("RcpApproxTable::from_deltas: deltas must have 2^23 entries, got " +
                                std::to_string(deltas.size()));
  }
  RcpApproxTable t;
  t.packed_.assign(kPayloadBytes, 0);
  for (std::size_t i = 0; i < deltas.size(); ++i) {
    const int d = deltas[i];
    if (d < -1 || d > 1) {
      throw std::invalid_argument("RcpApproxTable::from_deltas: delta[" + std::to_string(i) + "] = " +
                                  std::to_string(d) + " is not -1, 0 or +1");
    }
    const std::uint32_t bits = d == 0 ? 0u : (d == 1 ? 1u : 3u);
    t.packed_[i / 4] = static_cast<std::uint8_t>(t.packed_[i / 4] | (bits << (2 * (i % 4))));
  }
  return t;
}

RcpApproxTable RcpApproxTable::load(const std::string& path, std::string_view source) {
  // Through the io layer, as every input is read: a directory, a device (/dev/zero never ends)
  // or an unreadable file is refused with the system's reason, before any byte is parsed.
  const std::vector<std::uint8_t> bytes = io::read_input(source, path, false, kHeaderBytes + kPayloadBytes);
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string(source) + ": '" + path + "' is not a valid rcp.approx table: " + what);
  };
  if (bytes.size() < kHeaderBytes) fail("truncated header (" + std::to_string(bytes.size()) + " bytes)");
  const std::uint8_t* header = bytes.data();
  if (std::memcmp(header, kMagic, sizeof kMagic) != 0) fail("bad magic (expected MXVRCPA1)");
  if (get_u32(header + 8) != kVersion) fail("unsupported version " + std::to_string(get_u32(header + 8)));
  if (get_u32(header + 12) != kEntries) fail("entries must be 2^23, got " + std::to_string(get_u32(header + 12)));
  if (get_u32(header + 16) != 2) fail("bits per entry must be 2");
  if (bytes.size() < kHeaderBytes + kPayloadBytes) fail("truncated payload");
  if (bytes.size() > kHeaderBytes + kPayloadBytes) fail("trailing bytes after the payload");
  RcpApproxTable t;
  t.packed_.assign(bytes.begin() + kHeaderBytes, bytes.end());
  if (t.payload_hash() != get_u64(header + 24)) fail("payload hash mismatch (corrupted file)");
  for (std::size_t i = 0; i < kPayloadBytes; ++i) {
    for (int k = 0; k < 4; ++k) {
      if (((t.packed_[i] >> (2 * k)) & 3u) == 2u) fail("invalid entry 0b10 at index " + std::to_string(i * 4 + static_cast<std::size_t>(k)));
    }
  }
  return t;
}

void RcpApproxTable::save(const std::string& path) const {
  std::vector<std::uint8_t> bytes(kHeaderBytes + packed_.size(), 0);
  std::uint8_t* header = bytes.data();
  std::memcpy(header, kMagic, sizeof kMagic);
  put_u32(header + 8, kVersion);
  put_u32(header + 12, kEntries);
  put_u32(header + 16, 2);
  put_u64(header + 24, payload_hash());
  std::memcpy(header + kHeaderBytes, packed_.data(), packed_.size());
  io::OutputBatch file;
  file.output("rcp.approx table", path);
  file.set("rcp.approx table", std::move(bytes));
  file.commit();
}

int RcpApproxTable::delta(std::uint32_t significand) const {
  const std::uint32_t i = significand & (kEntries - 1);
  const std::uint32_t bits = (packed_[i / 4] >> (2 * (i % 4))) & 3u;
  return bits == 0 ? 0 : (bits == 1 ? 1 : -1);
}

float RcpApproxTable::rcp(float x) const {
  float special = 0.0f;
  if (rcp_special(x, special)) return special;
  return rcp_with_delta(x, delta(std::bit_cast<std::uint32_t>(x) & 0x007fffffu));
}

std::uint64_t RcpApproxTable::payload_hash() const { return fnv1a64(packed_); }

float rcp_ftz_correctly_rounded(float x) {
  float special = 0.0f;
  if (rcp_special(x, special)) return special;
  return rcp_with_delta(x, 0);
}

std::string committed_rcp_approx_table_path() { return io::find_data_file(kRcpApproxTableFileName).string(); }

namespace {

// Where the default table comes from (rules 1-3 of rcp_approx.h), resolved once per process.
struct DefaultTable {
  std::unique_ptr<RcpApproxTable> table;
  std::string error;      // a named file that is bad: rethrown on every call, never hidden
  std::string why_none;   // when there is no table: why (appended to "table missing")
};

DefaultTable resolve_default_table() {
  DefaultTable d;
  std::string path;
  std::string source;  // what a bad file is called in the error
  std::string note;    // appended to it
  const char* env = std::getenv("MXV_RCP_APPROX_TABLE");
  if (env != nullptr && std::string_view(env) == "none") {
    d.why_none = "MXV_RCP_APPROX_TABLE=none disables the default table";
    return d;
  }
  if (env != nullptr && *env != '\0') {
    path = env;
    source = "MXV_RCP_APPROX_TABLE";
  } else {
    path = committed_rcp_approx_table_path();
    if (path.empty()) {
      d.why_none = io::describe_data_search(kRcpApproxTableFileName);
      return d;
    }
    source = "rcp.approx table";
    note = " (the committed default table)";
  }
  try {
    d.table = std::make_unique<RcpApproxTable>(RcpApproxTable::load(path, source));
  } catch (const std::invalid_argument& e) {
    d.error = e.what() + note;
  }
  return d;
}

const DefaultTable& default_table_state() {
  static const DefaultTable d = resolve_default_table();  // thread-safe one-time initialisation
  return d;
}

}  // namespace

const RcpApproxTable* default_rcp_approx_table() {
  const DefaultTable& d = default_table_state();
  if (!d.error.empty()) throw std::invalid_argument(d.error);
  return d.table.get();
}

const RcpApproxTable& require_rcp_approx_table(const RcpApproxTable* table, const std::string& who) {
  if (table != nullptr) return *table;
  if (const RcpApproxTable* t = default_rcp_approx_table()) return *t;
  throw std::invalid_argument(
      who + ": rcp.approx table missing: capture it with `mxv_capture_rcp_approx OUT.bin` on a GPU "
            "(golden/capture/rcp_approx_capture.cu: the rcp.approx.ftz.f32 table, 2^23 2-bit deltas) and "
            "point MXV_RCP_APPROX_TABLE at the file (or pass --rcp-table FILE); " +
      default_table_state().why_none);
}

}  // namespace mxv
