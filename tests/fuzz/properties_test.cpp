// Every property of fuzz/properties.h on the emulated backend (docs/fuzzing.md "Properties"): a
// bounded number of generated cases each (MXV_FUZZ_CASES raises it; MXV_TEST_SEED changes them),
// every case under a seeded random thread schedule with the emulator's checkers on; and each property
// fails, with a shrunk counterexample, when a bug is planted in the kernel outputs it looks at.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "mxv/emulation/emulated_backend.h"
#include "mxv/fuzz/campaign.h"
#include "mxv/fuzz/properties.h"
#include "mxv/fuzz/values.h"

namespace mxv::fuzz {
namespace {

constexpr std::uint64_t kDefaultSeed = 20261201;

/// Cases per property: MXV_FUZZ_CASES when set, else `ci` (sized so the label stays near a minute
/// on two cores).
int cases_for(int ci) {
  if (const char* e = std::getenv("MXV_FUZZ_CASES")) return std::max(1, std::atoi(e));
  return ci;
}

/// The CI count of each property: a few hundred generated cases each (the emulator runs small
/// calls in milliseconds), about half a minute for the whole label on two cores.
int ci_cases(std::string_view property) {
  if (property == "convert_matches_reference" || property == "dequantize_matches_reference" ||
      property == "dequantize_scalar_equals_tiled") {
    return 1000;
  }
  return 400;
}

/// Whether a failure is shrunk to its minimal counterexample: yes unless MXV_FUZZ_SHRINK=0 (ci/mutation
/// needs only the failure, and shrinking a case of a broken kernel can take longer than finding it).
bool shrink() {
  const char* e = std::getenv("MXV_FUZZ_SHRINK");
  return e == nullptr || std::string_view(e) != "0";
}

class PropertyHolds : public ::testing::TestWithParam<std::string> {};

TEST_P(PropertyHolds, OnEmulatedBackend) {
  const Property& p = property_by_name(GetParam());
  emu::EmulatedBackend be;
  const std::uint64_t seed = test_seed(kDefaultSeed);
  const int cases = cases_for(ci_cases(p.name));
  const CheckOutcome o = check_property(p, be, {seed, cases, shrink()});
  EXPECT_TRUE(o.ok) << p.name << ": " << p.statement << "\nminimal counterexample:\n"
                    << o.counterexample << "report:\n"
                    << o.failure << "\nreplay: MXV_TEST_SEED=" << seed << " MXV_FUZZ_CASES=" << cases
                    << " fuzz_properties_test --gtest_filter='*" << p.name << "*'\n    or: "
                    << replay_command(p.name, "emulated", seed, cases);
  EXPECT_EQ(o.cases, cases) << "every requested case ran";
  EXPECT_LE(o.discarded, cases * 3) << "the generator discards too much for " << p.name;
}

TEST_P(PropertyHolds, FailsOnPlantedBug) {
  const Property& p = property_by_name(GetParam());
  emu::EmulatedBackend be;
  const CheckOutcome o = check_property(p, be, {kDefaultSeed, 5, true}, flip_every_byte());
  EXPECT_FALSE(o.ok) << p.name << " passed with every output byte flipped";
  EXPECT_FALSE(o.gave_up) << o.failure;
  EXPECT_FALSE(o.failure.empty());
  EXPECT_FALSE(o.counterexample.empty());
}

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const Property& p : properties()) out.emplace_back(p.name);
  return out;
}

INSTANTIATE_TEST_SUITE_P(emulated, PropertyHolds, ::testing::ValuesIn(names()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// requantize_reproduces_codes decides which elements must carry their code back from the quantize
// kernel's codes and scales, not from the dequantized value: a dequantize kernel that writes a
// NaN, an Inf or the smallest subnormal everywhere fails it (it passed all three while the check
// skipped every element whose dequantized value was not a normal fp32).
TEST(RequantizeReproducesCodes, FailsWhenEveryDequantizedValueIsTheSameWrongWord) {
  const Property& p = property_by_name("requantize_reproduces_codes");
  for (const std::uint32_t word : {0x7FC00000u, 0x7F800000u, 0x00000001u}) {
    const Tamper fill = [word](std::string_view output, std::vector<std::uint8_t>& bytes) {
      if (output != "dequantized") return;
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) std::memcpy(bytes.data() + i, &word, 4);
    };
    emu::EmulatedBackend be;
    const CheckOutcome o = check_property(p, be, {kDefaultSeed, 50, false}, fill);
    EXPECT_FALSE(o.ok) << "passed with every dequantized value 0x" << std::hex << word;
    EXPECT_FALSE(o.gave_up) << o.failure;
  }
}

}  // namespace
}  // namespace mxv::fuzz
