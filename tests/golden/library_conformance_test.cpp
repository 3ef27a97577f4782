// Every library preset held to its committed capture, byte for byte (label `conformance`;
// docs/conformance.md). The captures in golden/libraries/ were written by tools/conformance/ from
// the real libraries; each group names the preset that claims it. A claimed group must match in
// every code, scale, global scale and dequantized value; a difference fails with the check
// library's classified report. The planted-failure tests prove the comparison can fail: a wrong
// preset, a corrupted code, a corrupted file.
#include "mxv/golden/library_conformance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "mxv/golden/library_capture.h"
#include "mxv/check/gtest.h"

namespace mxv::golden {
namespace {

const std::filesystem::path kCaptures = MXV_LIBRARY_CAPTURES_DIR;

std::vector<std::filesystem::path> all_files() { return capture_files(kCaptures); }

std::string test_name(const ::testing::TestParamInfo<std::filesystem::path>& info) {
  std::string n = info.param.stem().string();
  std::replace_if(n.begin(), n.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return n;
}

const CaptureGroup& find_group(const Capture& c, const std::string& path) {
  for (const auto& g : c.groups) {
    if (g.path == path) return g;
  }
  throw std::runtime_error("no group " + path + " in " + c.file.string());
}

class LibraryCapture : public ::testing::TestWithParam<std::filesystem::path> {};

// Every group that claims a preset matches it; groups the library refused, or that no preset
// claims, are listed (not compared). The provenance is complete.
TEST_P(LibraryCapture, EveryClaimedGroupMatchesItsPreset) {
  const Capture cap = read_capture(GetParam());
  for (const auto& [key, value] : cap.provenance) EXPECT_FALSE(value.empty()) << key;
  std::size_t claimed = 0;
  std::size_t elements = 0;
  std::size_t blocks = 0;
  for (const CaptureGroup& g : cap.groups) {
    if (g.error) {
      std::cout << "  not compared: " << g.path << " (library refused: " << *g.error << ")\n";
      continue;
    }
    if (g.block_size == 0) {  // a cast: held to an mxv conversion
      if (g.convert && !g.convert->empty()) {
        const GroupVerdict v = check_cast(g, *g.convert);
        EXPECT_TRUE(v.ok()) << v.text();
        ++claimed;
        elements += v.elements;
      } else {
        ASSERT_TRUE(g.unclaimed.has_value()) << g.path << " is claimed by no conversion and gives no reason";
        std::cout << "  not claimed: " << g.path << " (" << *g.unclaimed << ")\n";
      }
      continue;
    }
    if (g.preset.empty()) {
      // An unclaimed group says why; silence would hide a preset that stopped claiming.
      ASSERT_TRUE(g.unclaimed.has_value()) << g.path << " is claimed by no preset and gives no reason";
      std::cout << "  not claimed: " << g.path << " (" << *g.unclaimed << ")\n";
      continue;
    }
    const GroupVerdict v = check_group(g, Recipe::by_name(g.preset));
    EXPECT_TRUE(v.ok()) << v.text();
    ++claimed;
    elements += v.elements;
    blocks += v.blocks;
  }
  std::cout << "  " << GetParam().filename().string() << ": " << claimed << " groups, " << elements << " elements, "
            << blocks << " blocks held to their presets\n";
  EXPECT_GT(claimed, 0u) << "a capture in which no group is claimed checks nothing";
}

INSTANTIATE_TEST_SUITE_P(Captures, LibraryCapture, ::testing::ValuesIn(all_files()), test_name);

TEST(LibraryCaptures, ArePresent) { EXPECT_GE(all_files().size(), 5u) << kCaptures; }

// Each library preset (torchao, ModelOpt) is claimed by some capture: no such preset is unchecked.
TEST(LibraryCaptures, EveryLibraryPresetIsClaimed) {
  std::set<std::string> claimed;
  for (const auto& f : all_files()) {
    for (const auto& g : read_capture(f).groups) {
      if (!g.preset.empty()) claimed.insert(g.preset);
    }
  }
  // An alias (the unversioned name is the newest release) is covered by the versioned preset it
  // equals field for field.
  auto same_fields = [](Recipe a, Recipe b) {
    a.name = b.name = "";
    return a == b;
  };
  std::vector<std::string_view> names(Recipe::preset_names().begin(), Recipe::preset_names().end());
  names.insert(names.end(), Recipe::library_preset_names().begin(), Recipe::library_preset_names().end());
  for (const auto name : names) {
    const std::string n(name);
    if (n.find("torchao") == std::string::npos && n.find("modelopt") == std::string::npos) continue;
    bool covered = claimed.count(n) > 0;
    for (const auto& c : claimed) covered = covered || same_fields(Recipe::by_name(n), Recipe::by_name(c));
    EXPECT_TRUE(covered) << "preset " << n << " names a library but no capture claims it (or a preset it equals)";
  }
}

// ---- planted failures: the comparison can fail -------------------------------------------------

// torchao 0.17 multiplies by (1/pts)/sf where 0.16 divides by pts*sf: held to the 0.16 preset,
// the 0.17 capture must show tie flips.
TEST(LibraryConformancePlanted, WrongPresetIsCaught) {
  const Capture cap = read_capture(kCaptures / "torchao-0.17.0.h5");
  const CaptureGroup& g = find_group(cap, "/nvfp4_two_level/ties_t1000");
  const GroupVerdict right = check_group(g, Recipe::nvfp4_torchao_017());
  EXPECT_TRUE(right.ok()) << right.text();
  const GroupVerdict wrong = check_group(g, Recipe::nvfp4_torchao_016());
  ASSERT_FALSE(wrong.ok());
  EXPECT_GT(wrong.reports.at(0).count(check::MismatchClass::kTieFlip) +
                wrong.reports.at(0).count(check::MismatchClass::kBoundaryFlip),
            0u)
      << wrong.text();
}

// One-level NVFP4 (no per-tensor scale): torchao 0.18 multiplies by 1/sf where 0.17 divides by
// sf. Each release's capture held to the other release's preset shows tie flips in the codes, and
// nothing else: scales and dequantized values agree.
TEST(LibraryConformancePlanted, OneLevelReleasesAreToldApart) {
  for (const auto& [file, right, wrong] : {std::tuple{"torchao-0.17.0.h5", "nvfp4_torchao_one_level@0.17",
                                                      "nvfp4_torchao_one_level@0.18"},
                                           std::tuple{"torchao-0.18.0.h5", "nvfp4_torchao_one_level@0.18",
                                                      "nvfp4_torchao_one_level@0.17"}}) {
    std::size_t code_flips = 0;
    for (const CaptureGroup& g : read_capture(kCaptures / file).groups) {
      if (g.mode != "one_level" || g.preset.empty() || g.error) continue;
      EXPECT_EQ(g.preset, right);
      const GroupVerdict v = check_group(g, Recipe::by_name(wrong));
      const check::Report& codes = v.reports.at(0);
      code_flips += codes.mismatch_count;
      EXPECT_EQ(codes.count(check::MismatchClass::kTieFlip) + codes.count(check::MismatchClass::kBoundaryFlip),
                codes.mismatch_count)
          << v.text();
      EXPECT_EQ(codes.mismatch_count, v.mismatches()) << v.text();
      if (codes.mismatch_count > 0) std::cout << "  " << file << " " << g.path << " held to " << wrong << ": " << codes.mismatch_count << " code flips\n";
    }
    EXPECT_GT(code_flips, 0u) << file;
  }
}

// bf16 inputs: torchao 0.17 rounds the dequantize's scale product pts * sf to bf16. Held to the
// fp32-product preset, its bf16 capture differs in dequantized values only (codes, scales and the
// global scale agree: quantize widens bf16 to fp32 first); 0.18's bf16 capture held to the bf16
// product preset fails the same way the other round.
TEST(LibraryConformancePlanted, Bf16ScaleProductIsSeen) {
  const Capture cap017 = read_capture(kCaptures / "torchao-0.17.0.h5");
  const CaptureGroup& g017 = find_group(cap017, "/nvfp4_two_level_bf16/random");
  ASSERT_EQ(g017.input_dtype.value_or(""), "bfloat16");
  EXPECT_EQ(g017.preset, "nvfp4_torchao_bf16@0.17");
  const GroupVerdict fp32_product = check_group(g017, Recipe::nvfp4_torchao_017());
  ASSERT_EQ(fp32_product.reports.size(), 4u);
  EXPECT_GT(fp32_product.reports.at(3).mismatch_count, 0u);
  EXPECT_EQ(fp32_product.reports.at(3).mismatch_count, fp32_product.mismatches()) << fp32_product.text();

  const Capture cap018 = read_capture(kCaptures / "torchao-0.18.0.h5");
  const CaptureGroup& g018 = find_group(cap018, "/nvfp4_two_level_bf16/random");
  EXPECT_EQ(g018.preset, "nvfp4_torchao@0.18");
  Recipe bf16_product = Recipe::nvfp4_torchao_018();
  bf16_product.dequant_order = DequantOrder::kElemTimesBf16ScaleProduct;
  const GroupVerdict v = check_group(g018, bf16_product);
  EXPECT_GT(v.reports.at(3).mismatch_count, 0u);
  EXPECT_EQ(v.reports.at(3).mismatch_count, v.mismatches()) << v.text();
}

// A group that says its input was bf16 must hold bf16 values: a stray low bit is refused.
TEST(LibraryConformancePlanted, Bf16InputWithFp32BitsIsRefused) {
  const Capture cap = read_capture(kCaptures / "torchao-0.16.0.h5");
  CaptureGroup g = find_group(cap, "/nvfp4_two_level_bf16/random");
  ASSERT_TRUE(check_group(g, Recipe::by_name(g.preset)).ok());
  g.input.data[3] |= 1u;
  EXPECT_THROW(check_group(g, Recipe::by_name(g.preset)), std::invalid_argument);
}

// ModelOpt's NaN block: only the codes are claimed (every NaN quotient is code 0x7 whatever its
// bits); they match, and a changed code is caught. The NaN-derived scales, global scale and
// dequantized values are left out: held to the preset in full, the group is not compared there.
TEST(LibraryConformancePlanted, ModeloptNanBlockCodesAreHeld) {
  for (const char* file : {"modelopt-0.43.0.h5", "modelopt-0.47.0.h5"}) {
    const Capture cap = read_capture(kCaptures / file);
    const CaptureGroup& g = find_group(cap, "/nvfp4/nan_block");
    ASSERT_EQ(g.claimed.value_or(""), "codes") << file;
    ASSERT_TRUE(g.unclaimed.has_value()) << file;
    const GroupVerdict v = check_group(g, Recipe::by_name(g.preset));
    ASSERT_EQ(v.reports.size(), 1u) << file;
    EXPECT_TRUE(v.ok()) << v.text();
    CaptureGroup bad = g;
    bad.codes->data[2] ^= 0x01;
    EXPECT_EQ(check_group(bad, Recipe::by_name(g.preset)).mismatches(), 1u) << file;
  }
}

// ModelOpt 0.47 clamps tiny block scales to 2^-9; the 0.43 preset stores 0x00 there.
TEST(LibraryConformancePlanted, ModeloptVersionsAreTold) {
  const Capture cap = read_capture(kCaptures / "modelopt-0.47.0.h5");
  const CaptureGroup& g = find_group(cap, "/nvfp4/tiny_blocks");
  EXPECT_TRUE(check_group(g, Recipe::nvfp4_modelopt_047()).ok());
  EXPECT_FALSE(check_group(g, Recipe::nvfp4_modelopt_043()).ok());
}

// The dequantize order is seen on real data: the library presets' elem * (sf * s_dec) held to the
// (elem * sf) * s_dec order of the other presets differs in the last bit somewhere in the NVFP4
// captures, and nowhere else than in the dequantized values; ModelOpt's +0 for 0x8 likewise.
TEST(LibraryConformancePlanted, DequantizeOrderIsSeen) {
  std::size_t order_flips = 0;
  std::size_t zero_signs = 0;
  for (const char* file : {"modelopt-0.47.0.h5", "torchao-0.18.0.h5"}) {
    for (const CaptureGroup& g : read_capture(kCaptures / file).groups) {
      if (g.error || g.preset.empty() || g.claimed || g.block_size != 16) continue;
      Recipe other_order = Recipe::by_name(g.preset);
      other_order.dequant_order = DequantOrder::kElemScaleThenGlobal;
      const GroupVerdict v = check_group(g, other_order);
      ASSERT_EQ(v.reports.at(0).mismatch_count + v.reports.at(1).mismatch_count, 0u) << v.text();
      if (v.reports.size() > 3) order_flips += v.reports.at(3).mismatch_count;
      if (std::string(file).rfind("modelopt", 0) == 0) {
        Recipe negative_zero = Recipe::by_name(g.preset);
        negative_zero.e2m1_negative_zero_decodes_positive = false;
        const GroupVerdict z = check_group(g, negative_zero);
        if (z.reports.size() > 3) zero_signs += z.reports.at(3).count(check::MismatchClass::kSignOfZero);
      }
    }
  }
  std::cout << "  dequantize order flips: " << order_flips << ", -0 vs +0: " << zero_signs << "\n";
  EXPECT_GT(order_flips, 0u);
  EXPECT_GT(zero_signs, 0u);
}

// One flipped code nibble, one changed scale byte, one changed dequantized bit, a changed global
// scale: each is caught and located.
TEST(LibraryConformancePlanted, CorruptedCaptureIsCaught) {
  const Capture cap = read_capture(kCaptures / "modelopt-0.47.0.h5");
  const CaptureGroup& good = find_group(cap, "/nvfp4/random");
  ASSERT_TRUE(check_group(good, Recipe::nvfp4_modelopt_047()).ok());

  CaptureGroup bad = good;
  bad.codes->data[5] ^= 0x10;
  GroupVerdict v = check_group(bad, Recipe::nvfp4_modelopt_047());
  ASSERT_EQ(v.reports.at(0).mismatch_count, 1u) << v.text();
  EXPECT_EQ(v.reports.at(0).listed.at(0).byte_offset, 5);
  EXPECT_EQ(v.reports.at(0).listed.at(0).nibble, 1);

  bad = good;
  bad.scales->data[3] = static_cast<std::uint8_t>(bad.scales->data[3] + 1);
  v = check_group(bad, Recipe::nvfp4_modelopt_047());
  ASSERT_EQ(v.reports.at(1).mismatch_count, 1u) << v.text();
  EXPECT_EQ(v.reports.at(1).listed.at(0).byte_offset, 3);

  bad = good;
  *bad.global_scale ^= 1u;
  EXPECT_EQ(check_group(bad, Recipe::nvfp4_modelopt_047()).reports.at(2).mismatch_count, 1u);

  bad = good;
  bad.dequantized->data[7] ^= 1u;
  EXPECT_EQ(check_group(bad, Recipe::nvfp4_modelopt_047()).reports.at(3).mismatch_count, 1u);
}

// The two torch ranges are told apart by E4M3 overflow alone: torch 2.15's capture held to
// torch@2.11, and torch 2.11's (CPU and CUDA) held to torch@2.15, differ in NaN-class codes only,
// at the overflowing inputs. Nor is torch 2.15 the cuda satfinite rule: that drops a NaN's sign,
// torch keeps it (-NaN -> 0xFF).
TEST(LibraryConformancePlanted, TorchReleasesAreToldApart) {
  const Capture torch_215 = read_capture(kCaptures / "torch-casts-2.15.0.h5");
  const CaptureGroup& new_cast = find_group(torch_215, "/torch_cast/float8_e4m3fn");
  EXPECT_EQ(new_cast.convert.value_or(""), "e4m3:nearest-even:finite:torch@2.15");
  const GroupVerdict as_old = check_cast(new_cast, "e4m3:nearest-even:none:torch@2.11");
  ASSERT_FALSE(as_old.ok());
  EXPECT_EQ(as_old.reports.at(0).count(check::MismatchClass::kNanPolicy), as_old.mismatches()) << as_old.text();
  for (const char* file : {"torch-casts-2.11.0.h5", "torch-casts-2.11.0-cuda.h5"}) {
    const Capture torch_211 = read_capture(kCaptures / file);
    const CaptureGroup& old_cast = find_group(torch_211, "/torch_cast/float8_e4m3fn");
    EXPECT_EQ(old_cast.convert.value_or(""), "e4m3:nearest-even:none:torch@2.11") << file;
    const GroupVerdict as_new = check_cast(old_cast, "e4m3:nearest-even:finite:torch");
    ASSERT_FALSE(as_new.ok()) << file;
    EXPECT_EQ(as_new.mismatches(), as_old.mismatches()) << file << as_new.text();
    EXPECT_EQ(as_new.reports.at(0).count(check::MismatchClass::kNanPolicy), as_new.mismatches()) << as_new.text();
  }
  const GroupVerdict cuda = check_cast(new_cast, "e4m3:nearest-even:finite:cuda");
  ASSERT_EQ(cuda.mismatches(), 1u) << cuda.text();
  EXPECT_EQ(cuda.reports.at(0).listed.at(0).actual, 0xFFu);
  EXPECT_EQ(cuda.reports.at(0).listed.at(0).input_bits, 0xFFC00000u);
}

// The two ml_dtypes ranges differ in E8M0 of fp32 subnormals alone: each release's capture held to
// the other's dialect fails at exactly the captured subnormals strictly between 2^-127 and
// 1.5 * 2^-127 (0.6 rounds them up to 0x01, 0.7 to the nearer 0x00), and nowhere else.
TEST(LibraryConformancePlanted, MlDtypesReleasesAreToldApart) {
  const std::pair<const char*, const char*> releases[] = {{"ml_dtypes-0.6.0.h5", "e8m0:nearest-even:none:ml_dtypes"},
                                                          {"ml_dtypes-0.7.0.h5", "e8m0:nearest-even:none:ml_dtypes@0.6"}};
  for (const auto& [file, other] : releases) {
    const Capture cap = read_capture(kCaptures / file);
    const CaptureGroup& g = find_group(cap, "/ml_dtypes_astype/float8_e8m0fnu");
    ASSERT_TRUE(check_cast(g, *g.convert).ok()) << file;
    const GroupVerdict v = check_cast(g, other);
    ASSERT_FALSE(v.ok()) << file;
    std::size_t between = 0;
    for (std::uint32_t bits : g.input.data) between += bits > 0x0040'0000u && bits < 0x0060'0000u;
    EXPECT_GT(between, 0u) << file << ": the inputs must reach the subnormals the releases disagree on";
    EXPECT_EQ(v.mismatches(), between) << file << "\n" << v.text();
    for (const auto& m : v.reports.at(0).listed) {
      ASSERT_TRUE(m.input_bits.has_value()) << file;
      EXPECT_TRUE(*m.input_bits > 0x0040'0000u && *m.input_bits < 0x0060'0000u) << file << std::hex << " 0x" << *m.input_bits;
    }
  }
}

// Every torch cast capture in the directory, whatever its release or device, claims a conversion
// for each cast torch performed and matches it. This reads the directory when it runs, so a newly
// committed torch-casts-*.h5 is checked even where the per-file test list was discovered before it.
TEST(LibraryCaptures, EveryTorchCastCaptureIsClaimedAndMatches) {
  std::size_t files = 0;
  for (const auto& f : all_files()) {
    if (f.filename().string().rfind("torch-casts-", 0) != 0) continue;
    ++files;
    const Capture cap = read_capture(f);
    EXPECT_EQ(cap.provenance.at("library"), "torch") << f;
    std::size_t claimed = 0;
    for (const CaptureGroup& g : cap.groups) {
      if (g.error) continue;
      ASSERT_TRUE(g.convert && !g.convert->empty()) << f << " " << g.path << ": torch cast with no claimed dialect";
      const GroupVerdict v = check_cast(g, *g.convert);
      EXPECT_TRUE(v.ok()) << f << "\n" << v.text();
      ++claimed;
    }
    EXPECT_GE(claimed, 2u) << f << ": float8_e4m3fn and float8_e8m0fnu";
    std::cout << "  " << f.filename().string() << " (" << cap.provenance.at("device") << "): " << claimed
              << " casts held to their dialects\n";
  }
  EXPECT_GE(files, 3u) << "torch 2.11 CPU and CUDA, torch 2.15 CPU";
}

// A `claimed` list that names no output the group holds would leave it compared on nothing, and
// passing: a misspelt name, a name the group lacks and a group without outputs are refused.
TEST(LibraryConformancePlanted, GroupsThatCompareNothingAreRefused) {
  const Capture cap = read_capture(kCaptures / "modelopt-0.47.0.h5");
  const CaptureGroup& g = find_group(cap, "/nvfp4/ties_t28");
  const Recipe recipe = Recipe::by_name(g.preset);
  ASSERT_TRUE(check_group(g, recipe).ok());
  CaptureGroup misspelt = g;
  misspelt.claimed = "code";
  misspelt.codes->data[0] ^= 0x01;  // a corruption the group would otherwise hide
  EXPECT_THROW(check_group(misspelt, recipe), std::invalid_argument);
  CaptureGroup lacking = g;
  lacking.claimed = "codes,dequantized";
  lacking.dequantized.reset();
  EXPECT_THROW(check_group(lacking, recipe), std::invalid_argument);
  CaptureGroup empty = g;
  empty.claimed.reset();
  empty.codes.reset();
  empty.scales.reset();
  empty.global_scale.reset();
  empty.dequantized.reset();
  EXPECT_THROW(check_group(empty, recipe), std::invalid_argument);
  CaptureGroup listed = g;  // every output listed: compared as in full
  listed.claimed = "codes,scales,global_scale,dequantized";
  EXPECT_EQ(check_group(listed, recipe).reports.size(), check_group(g, recipe).reports.size());
}

TEST(LibraryConformancePlanted, RefusedGroupsAreNotCompared) {
  const Capture cap = read_capture(kCaptures / "torchao-0.18.0.h5");
  const CaptureGroup& g = find_group(cap, "/nvfp4_two_level/partial_k");
  ASSERT_TRUE(g.error.has_value());
  EXPECT_THROW(check_group(g, Recipe::nvfp4_torchao()), std::invalid_argument);
}

// ---- the reader ----------------------------------------------------------------------------------

TEST(LibraryCaptureReader, ReadsProvenanceAndShapes) {
  const Capture cap = read_capture(kCaptures / "torchao-0.16.0.h5");
  EXPECT_EQ(cap.provenance.at("library"), "torchao");
  EXPECT_EQ(cap.provenance.at("library_version"), "0.16.0");
  const CaptureGroup& g = find_group(cap, "/mxfp8_floor/random");
  EXPECT_EQ(g.block_size, 32);
  EXPECT_EQ(g.element, "e4m3");
  EXPECT_EQ(g.preset, "mxfp8_torchao_floor");
  ASSERT_TRUE(g.codes && g.scales && g.dequantized);
  EXPECT_EQ(g.codes->cols, g.input.cols);  // E4M3: one byte per element
  EXPECT_EQ(g.scales->cols, g.input.cols / 32);
}

TEST(LibraryCaptureReader, RejectsMissingAndCorruptFiles) {
  EXPECT_THROW(read_capture(kCaptures / "no-such-capture.h5"), std::runtime_error);
  const auto path = std::filesystem::temp_directory_path() / "mxv_corrupt_capture.h5";
  {
    std::ifstream in(kCaptures / "modelopt-0.43.0.h5", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    bytes.resize(bytes.size() / 3);  // truncated: the superblock survives, the objects do not
    std::ofstream(path, std::ios::binary) << bytes;
  }
  EXPECT_THROW(read_capture(path), std::runtime_error);
  std::ofstream(path, std::ios::binary) << "not an hdf5 file";
  EXPECT_THROW(read_capture(path), std::runtime_error);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace mxv::golden
