// The buffers of a block-quantizing launch (block_quantize_buffers.h).
#include "mxv/device/block_quantize_buffers.h"

#include <stdexcept>
#include <string>

namespace mxv::device {

BlockQuantizeBuffers alloc_block_quantize_buffers(Backend& backend, std::string_view who, const BlockQuantizeLayout& layout,
                                                  std::uint8_t sentinel) {
  const std::string prefix = std::string(who) + ".";
  BlockQuantizeBuffers b;
  b.elements = backend.alloc(layout.element_bytes, prefix + "elements", sentinel);
  b.scales = backend.alloc(layout.scale_bytes, prefix + "scales", sentinel);
  b.amax = backend.alloc(sizeof(std::uint32_t), prefix + "amax", sentinel);
  b.s_dec = backend.alloc(sizeof(float), prefix + "s_dec", sentinel);
  if (!layout.tile_rows.empty()) b.tile_rows = backend.alloc_upload(layout.tile_rows, prefix + "tile_rows");
  if (layout.gate_table_bytes != 0) b.gate_table = backend.alloc(layout.gate_table_bytes, prefix + "gate_table", sentinel);
  return b;
}

void require_buffer_bytes(std::string_view who, const DeviceBuffer& b, std::uint64_t bytes, const char* what) {
  if (b.bytes() < bytes) {
    throw std::invalid_argument(std::string(who) + ": buffer '" + what + "' holds " + std::to_string(b.bytes()) +
                                " bytes, the plan needs " + std::to_string(bytes));
  }
}

void require_block_quantize_buffers(std::string_view who, const BlockQuantizeLayout& layout,
                                    const BlockQuantizeBuffers& out) {
  require_buffer_bytes(who, out.elements, layout.element_bytes, "elements");
  require_buffer_bytes(who, out.scales, layout.scale_bytes, "scales");
  require_buffer_bytes(who, out.amax, 4, "amax");
  require_buffer_bytes(who, out.s_dec, 4, "s_dec");
  require_buffer_bytes(who, out.tile_rows, layout.tile_rows.size() * 4, "tile_rows");
  require_buffer_bytes(who, out.gate_table, layout.gate_table_bytes, "gate_table");
}

void hold_calibrated_amax(Backend& backend, BlockQuantizeBuffers& out, std::uint32_t bits) {
  if (out.amax_holds == bits) return;
  backend.upload(out.amax, std::span<const std::uint32_t>(&bits, 1));
  out.amax_holds = bits;
}

}  // namespace mxv::device
