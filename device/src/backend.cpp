// Backend: guarded device memory and launch-plan validation shared by every backend
// (docs/design.md section 3.5, "Backends"; limits from the CUDA C Programming Guide, "Compute
// Capabilities").
#include "mxv/device/backend.h"

#include <array>
#include <sstream>
#include <utility>

#include "mxv/io/enum_names.h"

namespace mxv::device {

std::string LaunchPlan::describe() const {
  std::ostringstream os;
  os << kernel << " grid=(" << grid.x << "," << grid.y << "," << grid.z << ") block=(" << block.x
     << "," << block.y << "," << block.z << ") smem=" << dynamic_smem_bytes;
  if (one_wave) os << " one_wave";
  return os.str();
}

void validate_launch_plan(const LaunchPlan& plan) {
  auto fail = [&](std::string_view rule) {
    throw std::invalid_argument("launch plan " + plan.describe() + ": " + std::string(rule));
  };
  if (plan.kernel.empty()) fail("kernel name must not be empty");
  if (plan.grid.x == 0 || plan.grid.y == 0 || plan.grid.z == 0) fail("every grid dimension must be >= 1");
  if (plan.block.x == 0 || plan.block.y == 0 || plan.block.z == 0) fail("every block dimension must be >= 1");
  if (plan.grid.x > kMaxGridX) fail("grid.x must be <= 2^31-1");
  if (plan.grid.y > kMaxGridYZ || plan.grid.z > kMaxGridYZ) fail("grid.y and grid.z must be <= 65535");
  if (plan.block.z > 64u) fail("block.z must be <= 64");
  if (std::uint64_t{plan.block.x} * plan.block.y * plan.block.z > kMaxThreadsPerBlock) {
    fail("a block must have <= 1024 threads");
  }
  if (plan.dynamic_smem_bytes > kMaxStaticPlusDynamicSmem) fail("dynamic shared memory must be <= 48 KiB");
  if (plan.one_wave && (plan.grid.y != 1u || plan.grid.z != 1u)) fail("a one-wave grid must be one-dimensional");
}

std::optional<LaunchPlan> linear_launch_plan(std::string_view kernel, std::uint64_t items, std::uint64_t per_block,
                                             unsigned block_threads) {
  const std::uint64_t blocks = (items + per_block - 1) / per_block;
  if (blocks > kMaxGridX) return std::nullopt;
  LaunchPlan plan{std::string(kernel), {static_cast<unsigned>(blocks), 1, 1}, {block_threads, 1, 1}, 0};
  validate_launch_plan(plan);
  return plan;
}

std::string_view to_string(BackendKind kind) {
  return io::enum_name(kind, {"cuda", "emulated"});
}

BackendKind backend_kind_by_name(std::string_view name) {
  if (name == "cuda") return BackendKind::kCuda;
  if (name == "emulated") return BackendKind::kEmulated;
  throw std::invalid_argument("backend name '" + std::string(name) +
                              "' is not one of: cuda, emulated");
}

// ---- DeviceBuffer -------------------------------------------------------------------------

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (owner_ != nullptr && base_ != nullptr) owner_->raw_free(base_);
    owner_ = std::exchange(other.owner_, nullptr);
    base_ = std::exchange(other.base_, nullptr);
    user_ = std::exchange(other.user_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    name_ = std::move(other.name_);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (owner_ != nullptr && base_ != nullptr) owner_->raw_free(base_);
}

// ---- Backend memory -------------------------------------------------------------------------

namespace {

const std::array<std::byte, kGuardBytes>& guard_pattern() {
  static const std::array<std::byte, kGuardBytes> pattern = [] {
    std::array<std::byte, kGuardBytes> p{};
    for (std::size_t i = 0; i < kGuardBytes; ++i) p[i] = static_cast<std::byte>(guard_byte(i));
    return p;
  }();
  return pattern;
}

}  // namespace

DeviceBuffer Backend::alloc(std::size_t bytes, std::string name, std::uint8_t sentinel) {
  DeviceBuffer b;
  b.base_ = raw_alloc(bytes + 2 * kGuardBytes, name);
  b.owner_ = this;
  b.user_ = b.base_ + kGuardBytes;
  b.bytes_ = bytes;
  b.name_ = std::move(name);
  raw_write(b.base_, guard_pattern().data(), kGuardBytes);
  raw_write(b.user_ + bytes, guard_pattern().data(), kGuardBytes);
  if (bytes > 0) raw_fill(b.user_, sentinel, bytes);
  return b;
}

void Backend::upload_bytes(const DeviceBuffer& dst, std::span<const std::byte> src) {
  if (src.size() > dst.bytes()) {
    throw std::invalid_argument("upload to '" + dst.name() + "': " + std::to_string(src.size()) +
                                " bytes do not fit in its " + std::to_string(dst.bytes()));
  }
  if (!src.empty()) raw_write(dst.data(), src.data(), src.size());
}

std::vector<std::byte> Backend::download_bytes(const DeviceBuffer& src) {
  std::vector<std::byte> out(src.bytes());
  if (!out.empty()) raw_read(out.data(), src.data(), out.size());
  return out;
}

std::vector<std::byte> Backend::download_with_guards(const DeviceBuffer& src) {
  std::vector<std::byte> out(src.bytes() + 2 * kGuardBytes);
  raw_read(out.data(), src.data() - kGuardBytes, out.size());
  return out;
}

void Backend::fill(const DeviceBuffer& dst, std::uint8_t value) {
  if (dst.bytes() > 0) raw_fill(dst.data(), value, dst.bytes());
}

void Backend::set_bytes(const DeviceBuffer& dst, std::uint8_t value) {
  if (dst.bytes() > 0) raw_set(dst.data(), value, dst.bytes());
}

std::string Backend::guard_damage(const DeviceBuffer& buf) {
  const std::vector<std::byte> all = download_with_guards(buf);
  std::ostringstream os;
  auto scan = [&](std::size_t start, std::string_view side) {
    std::size_t damaged = 0, first = 0;
    for (std::size_t i = 0; i < kGuardBytes; ++i) {
      if (all[start + i] != guard_pattern()[i]) {
        if (damaged++ == 0) first = i;
      }
    }
    if (damaged == 0) return;
    // Report offsets relative to the buffer's first usable byte: negative before, >= bytes after.
    const long long offset = side == "before"
                                 ? static_cast<long long>(first) - static_cast<long long>(kGuardBytes)
                                 : static_cast<long long>(buf.bytes() + first);
    os << "buffer '" << buf.name() << "' (" << buf.bytes() << " bytes): " << damaged
       << " guard byte(s) " << side << " it changed; first at offset " << offset << " holds 0x"
       << std::hex << static_cast<unsigned>(all[start + first]) << " (guard 0x"
       << static_cast<unsigned>(guard_pattern()[first]) << std::dec << "). ";
  };
  scan(0, "before");
  scan(kGuardBytes + buf.bytes(), "after");
  return os.str();
}

// ---- Launching -------------------------------------------------------------------------------

void Backend::not_implemented(std::string_view kernel) const {
  throw std::logic_error("backend '" + std::string(name()) + "' has no launch entry for kernel '" +
                         std::string(kernel) + "'");
}


}  // namespace mxv::device
