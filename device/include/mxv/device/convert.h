// Host launcher of the `convert` kernel (kernels/convert.h): validates the arguments, builds the
// LaunchPlan and hands it to a Backend (docs/design.md section 5.1, "convert"). The same plan
// runs on the GPU and on the emulator.
#pragma once

#include <cstdint>
#include <string_view>

#include "mxv/device/backend.h"
#include "mxv/device/kernels/convert.h"

namespace mxv::device {

std::string_view to_string(ConvertDirection d);
std::string_view to_string(CodeFormat f);

/// Bytes holding `count` codes: count, or ceil(count / 2) for packed E2M1.
std::uint64_t code_bytes(CodeFormat f, std::uint64_t count);

/// One convert call. `in` is ignored (may be null) when `input_is_index` is set.
struct ConvertArgs {
  ConvertDirection direction = ConvertDirection::kEncode;
  WideType wide = WideType::kFp32;
  CodeFormat format = CodeFormat::kE4M3;
  std::uint64_t count = 0;
  const DeviceBuffer* in = nullptr;
  const DeviceBuffer* out = nullptr;
  bool input_is_index = false;  ///< encode only: input bits of element i are index_base + i
  std::uint32_t index_base = 0;
};

/// Validates `args` (std::invalid_argument naming the argument and the rule) and returns the
/// kernel parameters and the plan without launching anything.
struct ConvertLaunch {
  ConvertParams params;
  LaunchPlan plan;
};
ConvertLaunch plan_convert(const ConvertArgs& args);

/// Validates, plans and launches on `backend`; returns the plan it launched.
LaunchPlan convert(Backend& backend, const ConvertArgs& args);

}  // namespace mxv::device
