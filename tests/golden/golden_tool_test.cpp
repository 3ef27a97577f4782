// Tests of the `mxv golden` verbs (golden/include/mxv/golden/golden_tool.h; sources
// golden_regen.cpp, golden_check.cpp, golden_inspect.cpp): each detector is shown to fire on a
// planted change -- regen --check on one moved expected byte, check on a wrong expectation (the
// kernel is right, the file is not), diff on one differing output -- and to stay quiet on the
// untouched file; template writes the promised datasets.
#include "mxv/golden/golden_tool.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "mxv/golden/golden_catalogue.h"
#include "mxv/golden/golden_file.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv::golden {
namespace {

namespace fs = std::filesystem;

class GoldenToolTest : public test_support::ScratchDirTest {
 protected:
  /// A family file with the given cases (a subset of the catalogue, or changed copies).
  void write(const std::string& p, const std::vector<GoldenCase>& cases) {
    Provenance prov = Provenance::current("golden_tool_test", "golden_tool_test", kGoldenSeed);
    write_golden_file(p, prov, cases);
  }
};

TEST_F(GoldenToolTest, RegenCheckCatchesOneMovedByteAndRegenRestoresIt) {
  const std::string p = path("codes.h5");  // the smallest family
  RegenOptions o;
  o.files = {p};
  std::ostringstream out, err;
  ASSERT_EQ(run_regen(o, out, err), 0) << err.str();
  o.check = true;
  std::ostringstream quiet;
  EXPECT_EQ(run_regen(o, quiet, err), 0) << quiet.str();
  const std::vector<std::uint8_t> before = test_support::read_bytes(p);
  EXPECT_EQ(test_support::read_bytes(p), before) << "--check writes nothing";

  // One expected byte moved, file otherwise valid (hashes recomputed by the writer).
  std::vector<GoldenCase> cases = read_golden_file(p).cases;
  GoldenCase& victim = cases.at(3);
  victim.expected.at(0).bytes.at(5) ^= 0x01;
  write(p, cases);
  std::ostringstream changed;
  EXPECT_EQ(run_regen(o, changed, err), 1);
  EXPECT_NE(changed.str().find("changed " + victim.name + ": expected/" + victim.expected[0].spec.name + " 1 of " +
                               std::to_string(victim.expected[0].bytes.size()) + " bytes"),
            std::string::npos)
      << changed.str();
  o.check = false;
  std::ostringstream fixed;
  EXPECT_EQ(run_regen(o, fixed, err), 0);
  o.check = true;
  std::ostringstream again;
  EXPECT_EQ(run_regen(o, again, err), 0) << again.str();
}

TEST_F(GoldenToolTest, CheckRunsTheKernelsAndCatchesAWrongExpectation) {
  std::vector<GoldenCase> cases;
  for (const GoldenCase& c : generate_family("quantize")) {
    if (c.name.rfind("quantize.nvfp4_te.", 0) == 0 || c.name.rfind("quantize.nvfp4_modelopt.3x17", 0) == 0) {
      cases.push_back(c);
    }
  }
  ASSERT_GE(cases.size(), 5u);
  const std::string p = path("q.h5");
  write(p, cases);
  CheckOptions o;
  o.backend = "emulated";
  o.files = {p};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(o, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find(" passed, 0 failed, 1 not run"), std::string::npos) << out.str();  // modelopt: no kernel

  // The file claims a different block scale (one code higher): the kernel, which is right, now
  // disagrees with it, and the report classifies the difference.
  GoldenCase& victim = *std::find_if(cases.begin(), cases.end(), [](const GoldenCase& c) {
    return c.name == "quantize.nvfp4_te.7x400.linear.fp32";
  });
  victim.expected.at(1).bytes.at(0) = static_cast<std::uint8_t>(victim.expected[1].bytes[0] + 1);
  write(p, cases);
  std::ostringstream bad;
  EXPECT_EQ(run_check(o, bad, err), 1);
  EXPECT_NE(bad.str().find("FAIL emulated " + p + " " + victim.name), std::string::npos) << bad.str();
  EXPECT_NE(bad.str().find("scale-off-codes"), std::string::npos) << bad.str();
  EXPECT_NE(bad.str().find("does not reproduce the stored expectation"), std::string::npos) << bad.str();

  CheckOptions usage;
  usage.backend = "fpga";
  std::ostringstream u_out, u_err;
  EXPECT_EQ(run_check(usage, u_out, u_err), 2);
  EXPECT_NE(u_err.str().find("--backend 'fpga'"), std::string::npos);
}

TEST_F(GoldenToolTest, TemplateWritesInputsAndFilledOutputs) {
  TemplateOptions t;
  t.cases = {"decode.e2m1.cuda.*", "quantize.mxfp4_ocp.3x17.swizzled.fp32"};
  t.output = path("cand.h5");
  std::ostringstream out, err;
  ASSERT_EQ(run_template(t, out, err), 0) << err.str();
  const GoldenFile f = read_golden_file(t.output);
  EXPECT_EQ(f.provenance.content, "candidate");
  ASSERT_EQ(f.cases.size(), 4u);  // decode to bf16, fp16, fp32 + the quantize case
  for (const GoldenCase& c : f.cases) {
    for (const Dataset& d : c.expected) {
      EXPECT_EQ(d.bytes.size(), d.spec.bytes());
      EXPECT_TRUE(std::all_of(d.bytes.begin(), d.bytes.end(), [](std::uint8_t b) { return b == kCandidateFill; }));
    }
  }
  // The unfilled candidate fails as never-written; a pattern matching nothing and a directory are
  // usage errors.
  CheckOptions o;
  o.candidate = t.output;
  std::ostringstream report;
  EXPECT_EQ(run_check(o, report, err), 1);
  EXPECT_NE(report.str().find("never-written"), std::string::npos) << report.str();
  t.cases = {"nothing.like.this"};
  std::ostringstream e1;
  EXPECT_EQ(run_template(t, out, e1), 2);
  EXPECT_NE(e1.str().find("no case matches 'nothing.like.this'"), std::string::npos);
  t.cases = {"decode.*"};
  t.output = dir().string();
  std::ostringstream e2;
  EXPECT_EQ(run_template(t, out, e2), 2);
  // A template written when the reference expected other bytes: the report says the reference
  // moved since.
  GoldenCase moved = generate_family("codes").front();
  moved.expected.at(0).bytes.at(0) ^= 0x01;
  Provenance prov = Provenance::current("golden_tool_test", "golden_tool_test", kGoldenSeed);
  prov.content = "candidate";
  write_golden_file(path("moved.h5"), prov, {moved});
  o.candidate = path("moved.h5");
  std::ostringstream moved_report;
  EXPECT_EQ(run_check(o, moved_report, err), 1);
  EXPECT_NE(moved_report.str().find("changed since the template was written"), std::string::npos) << moved_report.str();
  // A golden file is not a candidate.
  const std::string g = path("golden.h5");
  write(g, {generate_family("codes").front()});
  o.candidate = g;
  std::ostringstream e3;
  EXPECT_EQ(run_check(o, report, e3), 2);
  EXPECT_NE(e3.str().find("not a candidate"), std::string::npos) << e3.str();
}

TEST_F(GoldenToolTest, DiffExplainsADifferingOutput) {
  std::vector<GoldenCase> cases;
  for (const GoldenCase& c : generate_family("codes")) {
    if (c.name == "encode.e4m3.nearest-even.finite.cuda.fp32" || c.name == "decode.e8m0.cuda.fp32") cases.push_back(c);
  }
  ASSERT_EQ(cases.size(), 2u);
  write(path("a.h5"), cases);
  std::ostringstream same, err;
  EXPECT_EQ(run_diff(path("a.h5"), path("a.h5"), same, err), 0);
  EXPECT_NE(same.str().find("2 equal, 0 differ"), std::string::npos) << same.str();
  // B encodes one tie the other way: 464 (between 448 and the overflow) is 448 (0x7E) in the cuda
  // dialect; B says NaN (0x7F).
  GoldenCase e = cases[1].params.op == Op::kEncode ? cases[1] : cases[0];
  const std::vector<float> x = widen_to_fp32(WideType::kFp32, e.inputs[0].bytes);
  std::size_t at = x.size();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == 464.0f) at = i;
  }
  ASSERT_LT(at, x.size());
  ASSERT_EQ(e.expected[0].bytes[at], 0x7E);
  e.expected[0].bytes[at] = 0x7F;
  write(path("b.h5"), {e});
  std::ostringstream d;
  EXPECT_EQ(run_diff(path("a.h5"), path("b.h5"), d, err), 1);
  EXPECT_NE(d.str().find("differs: " + e.name), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("expected/codes 1 of"), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("nan-policy"), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("only in " + path("a.h5") + ": decode.e8m0.cuda.fp32"), std::string::npos) << d.str();
}

}  // namespace
}  // namespace mxv::golden
