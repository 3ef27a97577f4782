// Where each logical element of an output lives in storage, and which storage is padding
// (docs/semantics.md section 5: packing, linear and swizzled 128x4 scales, grouped rows). The check
// library uses it to turn a byte offset into coordinates; it is computed here, independently of
// the block models' own layout code, so that a layout bug in either shows up as a mismatch.
//
// Storage is a sequence of slots: one per nibble for packed E2M1 (slot s is byte s/2, low nibble
// when s is even), one per element otherwise (1, 2 or 4 bytes). A slot is either data (it holds
// logical element i) or padding (must be zero).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mxv/check/check.h"

namespace mxv::check {

/// Bits of one slot: 4 (packed E2M1), 8, 16 or 32.
unsigned slot_bits(CodeKind kind);

/// Byte offset of scale (r, k) inside one 128x4-swizzled batch with `cols` scale columns
/// (docs/semantics.md section 5): (r/128)*n_k*512 + (k/4)*512 + (r%32)*16 + ((r%128)/32)*4 + k%4.
std::size_t swizzled_offset(std::size_t r, std::size_t k, std::size_t cols);

/// The map itself is arithmetic (O(batches) memory), so outputs of any size can be explained.
class StorageMap {
 public:
  /// Validates `spec` (throws std::invalid_argument naming the field and rule).
  explicit StorageMap(const OutputSpec& spec);

  std::size_t bytes() const { return bytes_; }
  std::size_t slots() const { return slots_; }
  std::size_t elements() const { return elements_; }
  unsigned bits_per_slot() const { return slot_bits_; }

  /// Slot holding logical element `element` (element < elements()).
  std::size_t slot_of(std::size_t element) const;
  /// Logical element held by `slot`, or nullopt for a padding slot.
  std::optional<std::size_t> element_of(std::size_t slot) const;
  /// {batch, row within batch, col} of a logical element.
  std::array<std::size_t, 3> coord_of(std::size_t element) const;
  /// Global row (over all batches, unpadded) of a logical element: indexes per-block context.
  std::size_t global_row_of(std::size_t element) const { return element / cols_; }
  std::size_t cols() const { return cols_; }
  /// First byte of a slot, and for packed E2M1 which nibble (0 low, 1 high; -1 otherwise).
  std::size_t byte_of(std::size_t slot) const;
  int nibble_of(std::size_t slot) const;
  /// The slot's bits read from a storage buffer of bytes() bytes (little-endian).
  std::uint32_t read(const std::uint8_t* storage, std::size_t slot) const;

 private:
  // The batch holding element / slot: the last batch whose first one is <= it (empty batches
  // share their first index with the next, and the last of them is the one that holds it).
  static std::size_t batch_of(const std::vector<std::size_t>& firsts, std::size_t index);

  Layout layout_;
  std::size_t bytes_ = 0;
  std::size_t slots_ = 0;
  std::size_t elements_ = 0;
  unsigned slot_bits_ = 8;
  std::size_t cols_ = 1;
  std::size_t row_slots_ = 1;                     // row-major: slots per stored row
  std::vector<std::size_t> rows_;                 // rows of each batch
  std::vector<std::size_t> batch_first_element_;  // logical index of each batch's first element
  std::vector<std::size_t> batch_first_slot_;     // first slot of each batch
};

}  // namespace mxv::check
