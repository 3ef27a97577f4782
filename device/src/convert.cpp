// Host launcher of the convert kernel: argument validation and the launch plan (256-thread blocks
// along x, each covering convert_block_elements(wide) elements; kernels/convert.h).
#include "mxv/device/convert.h"

#include <optional>
#include <stdexcept>
#include <string>

#include "mxv/io/enum_names.h"

namespace mxv::device {

std::string_view to_string(ConvertDirection d) {
  return d == ConvertDirection::kEncode ? "encode" : "decode";
}

std::string_view to_string(CodeFormat f) {
  return io::enum_name(f, {"e4m3", "e2m1", "e8m0-rz", "e8m0-rp"});
}

std::uint64_t code_bytes(CodeFormat f, std::uint64_t count) {
  return f == CodeFormat::kE2M1 ? (count + 1) / 2 : count;
}

namespace {

[[noreturn]] void reject(const std::string& argument, const std::string& rule) {
  throw std::invalid_argument("convert: " + argument + ": " + rule);
}

void require_size(const DeviceBuffer* b, std::string_view role, std::uint64_t bytes) {
  if (b == nullptr) reject(std::string(role), "buffer must not be null");
  if (b->bytes() < bytes) {
    reject(std::string(role), "buffer '" + b->name() + "' has " + std::to_string(b->bytes()) +
                                  " bytes, the call needs " + std::to_string(bytes));
  }
}

}  // namespace

ConvertLaunch plan_convert(const ConvertArgs& a) {
  if (a.count == 0) reject("count", "must be >= 1");
  const std::uint64_t wide_total = a.count * bytes_of(a.wide);
  const std::uint64_t code_total = code_bytes(a.format, a.count);
  const bool encode = a.direction == ConvertDirection::kEncode;
  if (a.input_is_index) {
    if (!encode) reject("input_is_index", "only an encode can take its inputs from the index");
    const std::uint64_t space = a.wide == WideType::kFp32 ? (std::uint64_t{1} << 32) : (std::uint64_t{1} << 16);
    if (std::uint64_t{a.index_base} + a.count > space) {
      reject("index_base + count", "must not exceed " + std::to_string(space) + " (the " +
                                       std::string(to_string(a.wide)) + " bit patterns)");
    }
  } else {
    require_size(a.in, "in", encode ? wide_total : code_total);
  }
  require_size(a.out, "out", encode ? code_total : wide_total);

  ConvertLaunch l;
  l.params.direction = a.direction;
  l.params.wide = a.wide;
  l.params.format = a.format;
  l.params.count = a.count;
  l.params.input_is_index = a.input_is_index;
  l.params.index_base = a.index_base;
  l.params.in = a.input_is_index || a.in == nullptr ? GlobalPtr<std::uint8_t>{} : a.in->as<std::uint8_t>();
  l.params.out = a.out->as<std::uint8_t>();
  const auto aligned = [](GlobalPtr<std::uint8_t> b) { return reinterpret_cast<std::uintptr_t>(b.raw) % 16 == 0; };
  l.params.vector = aligned(l.params.in) && aligned(l.params.out);

  const std::optional<LaunchPlan> plan = linear_launch_plan(to_string(ConvertVariant::kConvert), a.count,
                                                            convert_block_elements(a.wide), kConvertBlockThreads);
  if (!plan) reject("count", "needs more than 2^31-1 blocks");
  l.plan = *plan;
  return l;
}

LaunchPlan convert(Backend& backend, const ConvertArgs& args) { return launch_planned(backend, plan_convert(args)); }

}  // namespace mxv::device
