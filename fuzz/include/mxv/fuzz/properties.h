// The properties every kernel is held to (docs/fuzzing.md "Properties"): each is one rapidcheck
// case body that generates a call (cases.h), runs it on a backend and asserts a statement about the
// outputs. The main ones say "the kernel equals the reference byte for byte" for every kernel family;
// the metamorphic ones relate two kernel runs (sign symmetry, power-of-two scaling, swizzle
// bijection, fused == unfused SwiGLU, requantization, scalar == tiled dequantize), so a bug the
// reference shares would still have to break an identity to hide.
//
// On the emulated backend every case runs under a thread schedule drawn by the case (the
// emulator's seeded shuffle), and any emulator finding (out-of-bounds, guard-band access,
// uninitialised read, race) fails the case.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mxv/device/backend.h"
#include "mxv/golden/verify.h"

namespace mxv::fuzz {

/// Planted-bug hook: sees one named kernel output (usable bytes only) after download and may change
/// it. The property tests plant a bug through it to prove each property can fail; real runs pass
/// none.
using Tamper = std::function<void(std::string_view output, std::vector<std::uint8_t>& bytes)>;

struct Property {
  std::string_view name;       ///< "quantize_matches_reference", ...
  std::string_view statement;  ///< one line: what must hold
  /// One case: draws its call with rapidcheck's `*gen`, runs it on the backend, fails with
  /// RC_FAIL / RC_ASSERT (the message carries the check library's report where there is one).
  std::function<void(device::Backend&, const Tamper&)> body;
};

/// Every property, main ones first.
std::span<const Property> properties();
/// The property called `name`; throws std::invalid_argument listing the names.
const Property& property_by_name(std::string_view name);

/// The kernel calls (with their inputs) of the most recent case that failed in this thread, as the
/// property ran them (a metamorphic property's two calls, e.g. x and -x). rapidcheck's last failing
/// run is its minimal counterexample, so after a failed check this is the shrunk case; `mxv fuzz
/// --save-failure` writes it as golden cases. Cleared by clear_failing_calls().
const std::vector<golden::VerifyCase>& failing_calls();
void clear_failing_calls();

/// Flips the lowest bit of every byte: the planted bug the property tests use (every byte-exact
/// comparison and every identity between two runs must see it).
Tamper flip_every_byte();

}  // namespace mxv::fuzz
