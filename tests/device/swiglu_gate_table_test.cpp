// The gate-factor table's slot functions (device/include/mxv/device/kernels/swiglu_gate_table.h;
// docs/design.md section 5.4): gate_table_slots2, the fused kernel's slots of two packed bf16
// gates, against gate_table_slot applied to each half, over every one of the 2^32 packed words
// (each gate with every partner: the low gate's borrow is where a packed form can go wrong). The
// sweep's checker is shown to fail on a planted bug first.
#include "mxv/device/kernels/swiglu_gate_table.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

using mxv::device::gate_table_slot;
using mxv::device::gate_table_slots2;
using mxv::device::kGateTableEntries;
using mxv::device::kGateTableOutside2;

struct Sweep {
  std::uint64_t words = 0;
  std::uint64_t wrong = 0;
  std::string first;  ///< the first wrong word, with what was expected
};

/// What the fused kernel relies on for packed word w, given `slots2`'s answer s:
/// - s & kGateTableOutside2 is 0 exactly when both gates are in the table;
/// - the low half of s is the low gate's slot mod 2^16, always;
/// - when the low gate is in the table, the high half is the high gate's slot mod 2^16, and when
///   both are, s >> 14 is 4 times the high gate's slot (its byte offset in the table).
/// nullptr when all hold, else the rule that failed.
const char* check_word(std::uint32_t w, std::uint32_t s) {
  const std::uint32_t lo = gate_table_slot(w & 0xFFFFu);
  const std::uint32_t hi = gate_table_slot(w >> 16);
  const bool lo_in = lo < kGateTableEntries;
  const bool hi_in = hi < kGateTableEntries;
  if (((s & kGateTableOutside2) == 0u) != (lo_in && hi_in)) return "in-table test";
  if ((s & 0xFFFFu) != (lo & 0xFFFFu)) return "low slot";
  if (lo_in && (s >> 16) != (hi & 0xFFFFu)) return "high slot";
  if (lo_in && hi_in && (s >> 14) != 4u * hi) return "high byte offset";
  return nullptr;
}

/// Every word w in [first, last] through `slots2`.
template <class Slots2>
Sweep sweep(std::uint64_t first, std::uint64_t last, Slots2 slots2) {
  Sweep r;
  for (std::uint64_t w = first; w <= last; ++w) {
    const auto word = static_cast<std::uint32_t>(w);
    const char* const why = check_word(word, slots2(word));
    ++r.words;
    if (why != nullptr && r.wrong++ == 0) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "word 0x%08X: %s", word, why);
      r.first = buf;
    }
  }
  return r;
}

// A packed form that forgets the high gate's sign (bit 0 of its slot keeps the low gate's sign)
// and one that tests only the low gate: the checker reports both, on the words of high gate -1.0
// (inside the table) and of high gate 2^20 (outside it) with every low gate.
TEST(GateTableSlots2PlantedBug, LostHighSignAndLowOnlyTestAreReported) {
  constexpr std::uint32_t kStart = 0x00010001u * (2u * (mxv::device::kGateTableExpLo << 7));
  const auto forgets_high_sign = [](std::uint32_t w) {
    return mxv::device::select_bits(2u * w - kStart, w >> 15, 0x00000001u);
  };
  const Sweep sign = sweep(0xBF80'0000u, 0xBF80'FFFFu, forgets_high_sign);
  EXPECT_GT(sign.wrong, 0u);
  EXPECT_NE(sign.first.find("high slot"), std::string::npos) << sign.first;
  const auto low_only_test = [](std::uint32_t w) { return gate_table_slots2(w) & 0x0000FFFFu; };
  const Sweep test = sweep(0x4980'0000u, 0x4980'FFFFu, low_only_test);
  EXPECT_GT(test.wrong, 0u);
  EXPECT_NE(test.first.find("in-table test"), std::string::npos) << test.first;
}

TEST(GateTableSlots2, EveryPackedWordAgreesWithTheSlotOfEachHalf) {
  const Sweep r = sweep(0, 0xFFFF'FFFFu, [](std::uint32_t w) { return gate_table_slots2(w); });
  std::printf("%llu packed words checked, %llu wrong\n", static_cast<unsigned long long>(r.words),
              static_cast<unsigned long long>(r.wrong));
  EXPECT_EQ(r.words, std::uint64_t{1} << 32);
  EXPECT_EQ(r.wrong, 0u) << r.first;
}

}  // namespace
