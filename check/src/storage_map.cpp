// Storage maps for the check library: packing (two E2M1 per byte, element 2i low nibble), row-major
// with padded rows, and swizzled 128x4 scale tiles (docs/semantics.md section 5). Written from the
// layout rules, independently of the block models' layout code.
#include "mxv/check/storage_map.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "mxv/io/enum_names.h"

namespace mxv::check {
namespace {

[[noreturn]] void fail(const OutputSpec& spec, const std::string& rule) {
  throw std::invalid_argument("mxv::check: OutputSpec '" + spec.name + "': " + rule);
}

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

bool is_byte_code(CodeKind k) {
  return k == CodeKind::kE4M3 || k == CodeKind::kUE4M3 || k == CodeKind::kE8M0;
}

void validate(const OutputSpec& spec) {
  if (spec.batches == 0) fail(spec, "batches must be >= 1");
  if (spec.cols == 0) fail(spec, "cols must be >= 1");
  if (spec.row_align == 0) fail(spec, "row_align must be >= 1");
  if (!spec.group_rows.empty() && spec.group_rows.size() != spec.batches) {
    fail(spec, "group_rows has " + std::to_string(spec.group_rows.size()) +
                   " entries but batches is " + std::to_string(spec.batches) + "; they must agree");
  }
  if (spec.layout == Layout::kSwizzled128x4) {
    if (!is_byte_code(spec.kind)) {
      fail(spec, "layout swizzled-128x4 holds block scales only (e4m3, ue4m3, e8m0), not " +
                     std::string(to_string(spec.kind)));
    }
    if (spec.row_align != 1) fail(spec, "row_align must be 1 with swizzled-128x4 (it pads rows to 128 itself)");
  }
  // Keep every size far from overflow: 2^40 slots is beyond any output mxv compares.
  constexpr std::size_t kLimit = std::size_t{1} << 40;
  if (spec.cols >= kLimit || spec.batches >= kLimit) fail(spec, "cols and batches must be < 2^40");
  for (std::size_t b = 0; b < spec.batches; ++b) {
    if (spec.rows_of(b) >= kLimit) fail(spec, "rows must be < 2^40");
  }
}

// Slots one batch occupies, and slots per stored row (row-major).
std::size_t row_slots(const OutputSpec& spec) {
  return spec.kind == CodeKind::kE2M1x2 ? 2 * ceil_div(spec.cols, 2) : spec.cols;
}

std::size_t batch_slots(const OutputSpec& spec, std::size_t batch) {
  const std::size_t rows = spec.rows_of(batch);
  if (spec.layout == Layout::kSwizzled128x4) return ceil_div(rows, 128) * ceil_div(spec.cols, 4) * 512;
  return ceil_div(rows, spec.row_align) * spec.row_align * row_slots(spec);
}

}  // namespace

std::string_view to_string(CodeKind k) {
  return io::enum_name(k, {"e2m1x2", "e4m3", "ue4m3", "e8m0", "bf16", "fp16", "fp32"});
}

std::string_view to_string(Layout l) {
  return l == Layout::kRowMajor ? "row-major" : "swizzled-128x4";
}

unsigned slot_bits(CodeKind kind) {
  switch (kind) {
    case CodeKind::kE2M1x2: return 4;
    case CodeKind::kBf16:
    case CodeKind::kFp16: return 16;
    case CodeKind::kFp32: return 32;
    default: return 8;
  }
}

// The check library's own copy of the swizzle formula, independent of the reference's and the
// kernels' on purpose (docs/design.md section 3.7).
std::size_t swizzled_offset(std::size_t r, std::size_t k, std::size_t cols) {
  const std::size_t n_k = ceil_div(cols, 4);
  return (r / 128) * n_k * 512 + (k / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + k % 4;
}

OutputSpec OutputSpec::packed_e2m1(std::string name, std::size_t rows, std::size_t cols,
                                   std::size_t batches) {
  return tensor(std::move(name), CodeKind::kE2M1x2, rows, cols, batches);
}

OutputSpec OutputSpec::scales(std::string name, CodeKind kind, std::size_t rows, std::size_t blocks,
                              Layout layout, std::size_t batches) {
  OutputSpec s = tensor(std::move(name), kind, rows, blocks, batches);
  s.layout = layout;
  s.axes = {"batch", "row", "block"};
  return s;
}

OutputSpec OutputSpec::tensor(std::string name, CodeKind kind, std::size_t rows, std::size_t cols,
                              std::size_t batches) {
  OutputSpec s;
  s.name = std::move(name);
  s.kind = kind;
  s.rows = rows;
  s.cols = cols;
  s.batches = batches;
  return s;
}

OutputSpec OutputSpec::scalar(std::string name) {
  OutputSpec s;
  s.name = std::move(name);
  s.kind = CodeKind::kFp32;
  return s;
}

std::size_t storage_bytes(const OutputSpec& spec) {
  validate(spec);
  std::size_t slots = 0;
  for (std::size_t b = 0; b < spec.batches; ++b) slots += batch_slots(spec, b);
  return slots * slot_bits(spec.kind) / 8;
}

std::size_t element_count(const OutputSpec& spec) {
  validate(spec);
  std::size_t n = 0;
  for (std::size_t b = 0; b < spec.batches; ++b) n += spec.rows_of(b) * spec.cols;
  return n;
}

StorageMap::StorageMap(const OutputSpec& spec)
    : layout_(spec.layout),
      bytes_(storage_bytes(spec)),
      slot_bits_(slot_bits(spec.kind)),
      cols_(spec.cols),
      row_slots_(row_slots(spec)) {
  slots_ = bytes_ * 8 / slot_bits_;
  rows_.reserve(spec.batches);
  batch_first_element_.reserve(spec.batches);
  batch_first_slot_.reserve(spec.batches);
  std::size_t slot = 0;
  for (std::size_t b = 0; b < spec.batches; ++b) {
    rows_.push_back(spec.rows_of(b));
    batch_first_element_.push_back(elements_);
    batch_first_slot_.push_back(slot);
    elements_ += spec.rows_of(b) * cols_;
    slot += batch_slots(spec, b);
  }
}

std::size_t StorageMap::batch_of(const std::vector<std::size_t>& firsts, std::size_t index) {
  const auto it = std::upper_bound(firsts.begin(), firsts.end(), index);
  return static_cast<std::size_t>(it - firsts.begin()) - 1;
}

std::size_t StorageMap::slot_of(std::size_t element) const {
  const std::size_t b = batch_of(batch_first_element_, element);
  const std::size_t in_batch = element - batch_first_element_[b];
  const std::size_t r = in_batch / cols_, c = in_batch % cols_;
  return batch_first_slot_[b] + (layout_ == Layout::kSwizzled128x4 ? swizzled_offset(r, c, cols_) : r * row_slots_ + c);
}

std::optional<std::size_t> StorageMap::element_of(std::size_t slot) const {
  const std::size_t b = batch_of(batch_first_slot_, slot);
  const std::size_t local = slot - batch_first_slot_[b];
  std::size_t r = 0, c = 0;
  if (layout_ == Layout::kSwizzled128x4) {
    // Invert off = tile*512 + (r%32)*16 + ((r%128)/32)*4 + k%4, tile = (r/128)*n_k + k/4.
    const std::size_t n_k = ceil_div(cols_, 4);
    const std::size_t tile = local / 512, within = local % 512;
    r = (tile / n_k) * 128 + ((within % 16) / 4) * 32 + within / 16;
    c = (tile % n_k) * 4 + within % 4;
  } else {
    r = local / row_slots_;
    c = local % row_slots_;
  }
  if (r >= rows_[b] || c >= cols_) return std::nullopt;
  return batch_first_element_[b] + r * cols_ + c;
}

std::array<std::size_t, 3> StorageMap::coord_of(std::size_t element) const {
  const std::size_t b = batch_of(batch_first_element_, element);
  const std::size_t in_batch = element - batch_first_element_[b];
  return {b, in_batch / cols_, in_batch % cols_};
}

std::size_t StorageMap::byte_of(std::size_t slot) const { return slot * slot_bits_ / 8; }

int StorageMap::nibble_of(std::size_t slot) const {
  return slot_bits_ == 4 ? static_cast<int>(slot % 2) : -1;
}

std::uint32_t StorageMap::read(const std::uint8_t* storage, std::size_t slot) const {
  const std::size_t byte = byte_of(slot);
  if (slot_bits_ == 4) return (slot % 2 == 0) ? (storage[byte] & 0xFu) : (storage[byte] >> 4);
  std::uint32_t v = 0;
  for (unsigned i = 0; i < slot_bits_ / 8; ++i) v |= static_cast<std::uint32_t>(storage[byte + i]) << (8 * i);
  return v;
}

}  // namespace mxv::check
