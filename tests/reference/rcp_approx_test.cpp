// rcp.approx.ftz.f32 model (docs/semantics.md section 4.6): the table format round-trips, a
// corrupted file is a clear error, the emulation applies exactly the table's delta, the ftz rules,
// and the trtllm recipe reports a missing table. The committed capture
// golden/captures/rcp_approx_ftz_f32_sm90.bin (H200, 2026-11-29, `mxv_capture_rcp_approx`) is the
// default table: it loads, its delta counts equal what the capture printed, and docs/semantics.md's
// "13.2% of normal inputs, always +-1 ulp, exponent-invariant" holds for it.
#include "mxv/reference/rcp_approx.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck/gtest.h>
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

// What load refuses `path` with ("" when it loads).
std::string load_refusal(const std::string& path, std::string_view source) {
  try {
    (void)RcpApproxTable::load(path, source);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The table is read through the io layer like every input: a directory, a device (/dev/zero would
// pass for a header of zeros) and a missing file are refused with the reason, naming where the
// path came from.
TEST(RcpApprox, LoadRefusesWhatIsNotAFileNamingTheSource) {
  const std::string dir = temp_path("table_dir");
  std::filesystem::create_directory(dir);
  EXPECT_EQ(load_refusal(dir, "--rcp-table"), "--rcp-table: '" + dir + "' is a directory, not a file");
  std::filesystem::remove(dir);
  EXPECT_NE(load_refusal("/dev/zero", "--rcp-table").find("--rcp-table: '/dev/zero' is a device"), std::string::npos);
  EXPECT_EQ(load_refusal("/nonexistent/t.bin", "rcp.approx table"),
            "rcp.approx table: '/nonexistent/t.bin' cannot be opened: No such file or directory");
  const std::string small = temp_path("small.bin");
  std::ofstream(small) << "MXVRCPA1";
  EXPECT_EQ(load_refusal(small, "MXV_RCP_APPROX_TABLE"),
            "MXV_RCP_APPROX_TABLE: '" + small + "' is not a valid rcp.approx table: truncated header (8 bytes)");
  std::filesystem::remove(small);
}

// nvfp4_trtllm with the default table disabled (MXV_RCP_APPROX_TABLE=none): the clear error.
// Runs as the ctest case rcp_approx_no_table, which sets the variable (the default table is
// resolved once per process, so it cannot be switched off inside this one).
TEST(RcpApproxNoTable, TrtllmPresetWithoutTableSaysWhatToDo) {
  const char* env = std::getenv("MXV_RCP_APPROX_TABLE");
  if (env == nullptr || std::string(env) != "none") {
    GTEST_SKIP() << "runs under ctest rcp_approx_no_table (MXV_RCP_APPROX_TABLE=none)";
  }
  EXPECT_EQ(default_rcp_approx_table(), nullptr);
  const Recipe r = Recipe::nvfp4_trtllm();
  try {
    (void)choose_block_scale(r, 1.0f, tensor_scale(r, 1.0f));
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("recipe nvfp4_trtllm: rcp.approx table missing: capture it with"), std::string::npos) << what;
    EXPECT_NE(what.find("MXV_RCP_APPROX_TABLE=none"), std::string::npos) << what;
  }
  // An explicit table still works without a default.
  const RcpApproxTable zero = RcpApproxTable::from_deltas(std::vector<std::int8_t>(RcpApproxTable::kEntries, 0));
  EXPECT_EQ(choose_block_scale(r, 6.0f, tensor_scale(r, 2688.0f), &zero).code, 0x38);
}

// MXV_RCP_APPROX_TABLE naming a file that does not exist is an error naming the file and the
// variable, never a silent fall back to the committed table. Runs as ctest rcp_approx_env_missing.
TEST(RcpApproxEnvMissing, NamedFileMissingIsAnError) {
  const char* env = std::getenv("MXV_RCP_APPROX_TABLE");
  if (env == nullptr || std::string(env) != "/nonexistent/mxv_rcp.bin") {
    GTEST_SKIP() << "runs under ctest rcp_approx_env_missing (MXV_RCP_APPROX_TABLE=/nonexistent/mxv_rcp.bin)";
  }
  for (int i = 0; i < 2; ++i) {  // reported on every call, not only the first
    try {
      (void)default_rcp_approx_table();
      FAIL() << "no exception";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("MXV_RCP_APPROX_TABLE: '/nonexistent/mxv_rcp.bin' cannot be opened"), std::string::npos)
          << what;
    }
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


// --- The committed capture ---------------------------------------------------------------------
// golden/captures/rcp_approx_ftz_f32_sm90.bin was captured on an H200 on 2026-11-29 by
// `mxv_capture_rcp_approx` (golden/capture/rcp_approx_capture.cu), which printed:
//   table: 1108522 of 2^23 significands differ from the correctly rounded reciprocal
//          (+1: 733799, -1: 374723)
//   emulation vs hardware over all 2^32 inputs: 0 mismatches
// The path below comes from this test's own CMake definition, not from the library.

const std::string kCommittedTable = MXV_TEST_COMMITTED_RCP_TABLE;

const RcpApproxTable& committed_table() {
  static const RcpApproxTable t = RcpApproxTable::load(kCommittedTable);
  return t;
}

// The 64-bit FNV-1a hash of the committed payload, as stored in the file's header (bytes 24..31:
// e5 40 24 a3 b7 01 b4 1e). load() already checks header against payload; pinning the value here
// also catches the file being replaced by another valid table.
constexpr std::uint64_t kCommittedPayloadHash = 0x1eb401b7a32440e5ull;

TEST(RcpApproxCommitted, LoadsWithThePinnedHash) {
  EXPECT_EQ(std::filesystem::file_size(kCommittedTable), RcpApproxTable::kHeaderBytes + RcpApproxTable::kPayloadBytes);
  EXPECT_EQ(committed_table().payload_hash(), kCommittedPayloadHash);
}

// With MXV_RCP_APPROX_TABLE unset the library's default is this very file.
TEST(RcpApproxCommitted, IsTheDefaultTable) {
  if (std::getenv("MXV_RCP_APPROX_TABLE") != nullptr) GTEST_SKIP() << "MXV_RCP_APPROX_TABLE is set";
  ASSERT_FALSE(committed_rcp_approx_table_path().empty());
  EXPECT_TRUE(std::filesystem::equivalent(committed_rcp_approx_table_path(), kCommittedTable));
  const RcpApproxTable* d = default_rcp_approx_table();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->payload_hash(), kCommittedPayloadHash);
  EXPECT_EQ(&require_rcp_approx_table(nullptr, "test"), d);
}

// The delta counts equal the capture's printed figures, and their fraction is docs/semantics.md
// section 4.6's 13.2%: each normal input x = 1.s * 2^e uses the entry of s, every s occurring
// once per exponent, so the fraction of normal inputs equals the fraction of entries.
TEST(RcpApproxCommitted, DeltaCountsEqualTheCapture) {
  const RcpApproxTable& t = committed_table();
  std::size_t plus = 0, minus = 0;
  for (std::uint32_t s = 0; s < RcpApproxTable::kEntries; ++s) {
    const int d = t.delta(s);
    plus += d == 1 ? 1u : 0u;
    minus += d == -1 ? 1u : 0u;
  }
  EXPECT_EQ(plus, 733799u);
  EXPECT_EQ(minus, 374723u);
  EXPECT_EQ(plus + minus, 1108522u);
  const double fraction = static_cast<double>(plus + minus) / static_cast<double>(RcpApproxTable::kEntries);
  EXPECT_GE(fraction, 0.1315);  // "13.2%" to one decimal
  EXPECT_LT(fraction, 0.1325);
}

// The correctly rounded reciprocal computed independently: 1/x in double, then rounded to fp32.
// No double rounding error: for a 24-bit significand m, |1/m - k/2^25| >= 1/(m * 2^25), far
// above double's 2^-53 relative error, so the double quotient never sits on an fp32 midpoint.
std::uint32_t correctly_rounded_bits(float x) {
  return bits(static_cast<float>(1.0 / static_cast<double>(x)));
}

// Every significand, at two exponents and both signs: the emulation equals the correctly rounded
// reciprocal plus the table's delta (added to the bit pattern by hand here), which is at most
// one ulp ("always +-1 ulp").
TEST(RcpApproxCommitted, EveryEntryIsCorrectlyRoundedPlusAtMostOneUlp) {
  const RcpApproxTable& t = committed_table();
  for (const std::uint32_t exponent_field : {127u + 0u, 127u - 100u}) {  // x in [1, 2) and [2^-100, 2^-99)
    for (const std::uint32_t sign : {0u, 0x80000000u}) {
      std::size_t wrong = 0;
      for (std::uint32_t s = 0; s < RcpApproxTable::kEntries; ++s) {
        const float x = hexf(sign | (exponent_field << 23) | s);
        const int d = t.delta(s);
        ASSERT_TRUE(d >= -1 && d <= 1);
        const auto expected = static_cast<std::uint32_t>(static_cast<std::int64_t>(correctly_rounded_bits(x)) + d);
        if (bits(t.rcp(x)) != expected && ++wrong <= 5) {
          ADD_FAILURE() << std::hex << "x 0x" << bits(x) << ": rcp 0x" << bits(t.rcp(x)) << ", expected 0x" << expected;
        }
      }
      EXPECT_EQ(wrong, 0u) << "exponent field " << exponent_field << " sign " << sign;
    }
  }
}

// Exponent invariance (docs/semantics.md section 4.6): x * 2^k has reciprocal rcp(x) * 2^-k while
// both stay normal, i.e. the bit patterns differ by exactly k in the exponent field. Exponents of x
// in [-125, 125] keep 1/x in [2^-126, 2^125]: normal. rapidcheck prints its seed on failure.
RC_GTEST_PROP(RcpApproxCommittedProperty, ScalingByPowerOfTwoScalesTheResult, ()) {
  const RcpApproxTable& t = committed_table();
  const auto s = *rc::gen::inRange<std::uint32_t>(0, RcpApproxTable::kEntries);
  const auto e1 = *rc::gen::inRange(-125, 126);
  const auto e2 = *rc::gen::inRange(-125, 126);
  const std::uint32_t sign = *rc::gen::element(0u, 0x80000000u);
  const float x1 = hexf(sign | (static_cast<std::uint32_t>(e1 + 127) << 23) | s);
  const float x2 = hexf(sign | (static_cast<std::uint32_t>(e2 + 127) << 23) | s);
  RC_ASSERT(x2 == std::ldexp(x1, e2 - e1));
  const float r1 = t.rcp(x1);
  const float r2 = t.rcp(x2);
  RC_ASSERT(std::fpclassify(r1) == FP_NORMAL);
  RC_ASSERT(std::fpclassify(r2) == FP_NORMAL);
  RC_ASSERT(r2 == std::ldexp(r1, e1 - e2));  // exact: a power-of-two scaling of a normal
  // and both are the correctly rounded reciprocal moved by the same delta
  const auto d1 = static_cast<std::int64_t>(bits(r1)) - static_cast<std::int64_t>(correctly_rounded_bits(x1));
  const auto d2 = static_cast<std::int64_t>(bits(r2)) - static_cast<std::int64_t>(correctly_rounded_bits(x2));
  RC_ASSERT(d1 == static_cast<std::int64_t>(t.delta(s)));
  RC_ASSERT(d2 == d1);
}

// A corrupted copy of the committed file is rejected with a message naming the file and the
// problem: a flipped payload byte, a truncated file, a wrong magic.
TEST(RcpApproxCommitted, CorruptedCopiesAreRejected) {
  const std::string path = temp_path("committed_copy.bin");
  auto fresh_copy = [&] {
    std::filesystem::copy_file(kCommittedTable, path, std::filesystem::copy_options::overwrite_existing);
  };
  auto expect_rejected = [&](const std::string& problem) {
    try {
      (void)RcpApproxTable::load(path);
      ADD_FAILURE() << "accepted a file with: " << problem;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("'" + path + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(problem), std::string::npos) << what;
    }
  };
  auto flip_byte = [&](std::size_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(offset));
    const int c = f.get();
    f.seekp(static_cast<std::streamoff>(offset));
    f.put(static_cast<char>(c ^ 0x01));  // one entry changes; load() checks the hash first
  };

  fresh_copy();
  EXPECT_EQ(RcpApproxTable::load(path).payload_hash(), kCommittedPayloadHash);  // the copy itself is fine
  flip_byte(RcpApproxTable::kHeaderBytes + 12345);
  expect_rejected("payload hash mismatch");

  fresh_copy();
  std::filesystem::resize_file(path, RcpApproxTable::kHeaderBytes + RcpApproxTable::kPayloadBytes - 1);
  expect_rejected("truncated payload");

  fresh_copy();
  std::filesystem::resize_file(path, 20);
  expect_rejected("truncated header");

  fresh_copy();
  flip_byte(3);  // 'R' -> 'S'
  expect_rejected("bad magic");

  fresh_copy();
  flip_byte(24);  // the stored hash itself
  expect_rejected("payload hash mismatch");

  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mxv
