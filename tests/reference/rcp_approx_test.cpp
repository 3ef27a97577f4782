// rcp.approx.ftz.f32 model (SEMANTICS.md section 4): the table format round-trips, a corrupted
// file is a clear error, the emulation applies exactly the table's delta, the ftz rules, and the
// trtllm recipe reports a missing table.
#include "mxv/reference/rcp_approx.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "mxv/reference/block_scale.h"
#include "mxv/reference/recipe.h"

namespace mxv {
namespace {

float hexf(std::uint32_t bits) { return std::bit_cast<float>(bits); }
std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mxv_rcp_" + std::to_string(::getpid()) + "_" + name)).string();
}

// The correctly rounded ftz reciprocal: exact cases and the flush rules.
TEST(RcpApprox, CorrectlyRoundedFtzRules) {
  EXPECT_EQ(rcp_ftz_correctly_rounded(2.0f), 0.5f);
  EXPECT_EQ(rcp_ftz_correctly_rounded(-4.0f), -0.25f);
  EXPECT_EQ(rcp_ftz_correctly_rounded(3.0f), 1.0f / 3.0f);
  EXPECT_EQ(rcp_ftz_correctly_rounded(6.0f), 1.0f / 6.0f);  // fl(1/6) = 0x3E2AAAAB
  EXPECT_EQ(bits(rcp_ftz_correctly_rounded(6.0f)), 0x3E2AAAABu);
  EXPECT_EQ(rcp_ftz_correctly_rounded(0.0f), INFINITY);
  EXPECT_EQ(rcp_ftz_correctly_rounded(-0.0f), -INFINITY);
  EXPECT_EQ(rcp_ftz_correctly_rounded(hexf(0x00000001u)), INFINITY);  // subnormal input flushed
  EXPECT_EQ(bits(rcp_ftz_correctly_rounded(-INFINITY)), 0x80000000u);
  EXPECT_EQ(bits(rcp_ftz_correctly_rounded(NAN)), 0x7FFFFFFFu);
  // 2^126 -> 2^-126 (normal); 2^127 -> 2^-127 (subnormal) -> flushed; 1.5 * 2^126 -> flushed.
  EXPECT_EQ(rcp_ftz_correctly_rounded(std::ldexp(1.0f, 126)), std::ldexp(1.0f, -126));
  EXPECT_EQ(rcp_ftz_correctly_rounded(std::ldexp(1.0f, 127)), 0.0f);
  EXPECT_EQ(bits(rcp_ftz_correctly_rounded(-std::ldexp(1.5f, 126))), 0x80000000u);
  // Every normal exponent of one significand agrees with IEEE 1/x where the result is normal.
  for (int e = -125; e <= 125; e += 7) {
    const float x = std::ldexp(1.2345f, e);
    EXPECT_EQ(rcp_ftz_correctly_rounded(x), 1.0f / x) << e;
  }
}

// A table with planted deltas: +1 ulp at the significand of 6 (1.5: 0x400000), which 3 and -1.5
// share (the delta depends only on the significand), and -1 ulp at that of 5 (1.25: 0x200000).
TEST(RcpApprox, PlantedDeltasAreAppliedForEveryExponent) {
  std::vector<std::int8_t> deltas(RcpApproxTable::kEntries, 0);
  deltas[0x400000] = 1;
  deltas[0x200000] = -1;
  const RcpApproxTable t = RcpApproxTable::from_deltas(deltas);
  EXPECT_EQ(t.delta(0x400000), 1);
  EXPECT_EQ(t.delta(0x200000), -1);
  EXPECT_EQ(t.delta(0x123456), 0);
  EXPECT_EQ(bits(t.rcp(6.0f)), 0x3E2AAAACu);           // fl(1/6) + 1 ulp
  EXPECT_EQ(bits(t.rcp(3.0f)), bits(1.0f / 3.0f) + 1);  // same significand, other exponent
  EXPECT_EQ(bits(t.rcp(-1.5f)), bits(-1.0f / 1.5f) + 1);
  EXPECT_EQ(bits(t.rcp(5.0f)), bits(0.2f) - 1);
  EXPECT_EQ(t.rcp(7.0f), 1.0f / 7.0f);
}

TEST(RcpApprox, SaveLoadRoundTripAndCorruption) {
  std::vector<std::int8_t> deltas(RcpApproxTable::kEntries, 0);
  for (std::size_t i = 0; i < deltas.size(); i += 977) deltas[i] = static_cast<std::int8_t>(i % 3) - 1;
  const RcpApproxTable t = RcpApproxTable::from_deltas(deltas);
  const std::string path = temp_path("table.bin");
  t.save(path);
  const RcpApproxTable u = RcpApproxTable::load(path);
  EXPECT_EQ(u.payload_hash(), t.payload_hash());
  for (std::size_t i = 0; i < deltas.size(); i += 977) EXPECT_EQ(u.delta(static_cast<std::uint32_t>(i)), deltas[i]);
  EXPECT_EQ(std::filesystem::file_size(path), RcpApproxTable::kHeaderBytes + RcpApproxTable::kPayloadBytes);

  // Flip one payload bit: the hash catches it.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(RcpApproxTable::kHeaderBytes + 100));
    f.put('\x55');
  }
  EXPECT_THROW(RcpApproxTable::load(path), std::invalid_argument);
  // Truncated.
  std::filesystem::resize_file(path, 1000);
  try {
    (void)RcpApproxTable::load(path);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  std::filesystem::remove(path);
  EXPECT_THROW(RcpApproxTable::load(path), std::invalid_argument);  // missing
  std::vector<std::int8_t> bad(RcpApproxTable::kEntries, 0);
  bad[5] = 2;
  EXPECT_THROW(RcpApproxTable::from_deltas(bad), std::invalid_argument);
}

// nvfp4_trtllm without a table (and MXV_RCP_APPROX_TABLE unset): the clear error.
TEST(RcpApprox, TrtllmPresetWithoutTableSaysWhatToDo) {
  if (std::getenv("MXV_RCP_APPROX_TABLE") != nullptr) GTEST_SKIP() << "MXV_RCP_APPROX_TABLE is set";
  const Recipe r = Recipe::nvfp4_trtllm();
  try {
    (void)choose_block_scale(r, 1.0f, tensor_scale(r, 1.0f));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rcp.approx table missing: capture it with"), std::string::npos) << e.what();
  }
}

// With a table the trtllm order uses it: an all-zero table gives IEEE reciprocals, so
// S_enc * (amax * fl(1/6)) and rcp(sf * rcp(S_enc)); a +1 delta at 1/6 moves the scale input
// by the expected amount. Tensor amax 2688 -> S_enc 1; amax 6 -> 6 * fl(1/6) = 1.0 (0x38); with
// fl(1/6) + 1 ulp (11184812 * 2^-26): 6 * that = (2^26 + 8) * 2^-26 = 1 + 2^-23 exactly.
TEST(RcpApprox, TrtllmUsesTheTable) {
  const Recipe r = Recipe::nvfp4_trtllm();
  std::vector<std::int8_t> deltas(RcpApproxTable::kEntries, 0);
  const RcpApproxTable zero = RcpApproxTable::from_deltas(deltas);
  const TensorScale ts = tensor_scale(r, 2688.0f);
  const BlockScale s0 = choose_block_scale(r, 6.0f, ts, &zero);
  EXPECT_EQ(s0.scale_input, 1.0f);
  EXPECT_EQ(s0.code, 0x38);
  EXPECT_EQ(s0.factor, 1.0f);
  deltas[0x400000] = 1;
  const RcpApproxTable planted = RcpApproxTable::from_deltas(deltas);
  const BlockScale s1 = choose_block_scale(r, 6.0f, ts, &planted);
  EXPECT_EQ(bits(s1.scale_input), 0x3F800001u);
  // Zero block: "0 when the scale is 0".
  EXPECT_EQ(choose_block_scale(r, 0.0f, ts, &zero).factor, 0.0f);
}

}  // namespace
}  // namespace mxv
