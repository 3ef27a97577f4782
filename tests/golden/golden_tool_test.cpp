// Tests of the `mxv golden` verbs (golden/include/mxv/golden/golden_tool.h; sources
// golden_regen.cpp, golden_check.cpp, golden_inspect.cpp): each detector is shown to fire on a
// planted change -- regen --check on one moved expected byte, check on a wrong expectation (the
// kernel is right, the file is not), diff on one differing output -- and to stay quiet on the
// untouched file; template writes the promised datasets; and none replaces a file it did not
// write.
#include "mxv/golden/golden_tool.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "mxv/golden/golden_catalogue.h"
#include "mxv/golden/golden_file.h"
#include "mxv/golden/hdf5_file.h"
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

// The golden verbs destroy nothing they were not made for. template -o and regen follow the
// command line's output rules: a pipe (or device) is refused, a symbolic link is written through.
// regen replaces only an mxv golden file: a file of a family's name that is not one (raw bytes, a
// user's HDF5 file, a candidate) is left alone with exit 2, --check included.
TEST_F(GoldenToolTest, TemplateAndRegenReplaceOnlyWhatTheyWrote) {
  std::ostringstream out, err;
  ASSERT_EQ(::mkfifo(path("pipe.h5").c_str(), 0600), 0);
  TemplateOptions t;
  t.cases = {"decode.e2m1.cuda.*"};
  t.output = path("pipe.h5");
  EXPECT_EQ(run_template(t, out, err), 2);
  EXPECT_NE(err.str().find("-o: '" + t.output + "' exists and is not a regular file"), std::string::npos) << err.str();
  EXPECT_TRUE(fs::is_fifo(path("pipe.h5")));
  fs::create_symlink("target.h5", path("link.h5"));
  t.output = path("link.h5");
  ASSERT_EQ(run_template(t, out, err), 0) << err.str();
  EXPECT_TRUE(fs::is_symlink(path("link.h5")));
  EXPECT_EQ(read_golden_file(path("target.h5")).provenance.content, "candidate");

  const auto regen_refuses = [&](const std::string& name, const std::string& says) {
    const std::vector<std::uint8_t> before = test_support::read_bytes(path(name));
    for (const bool check : {false, true}) {
      RegenOptions o;
      o.files = {path(name)};
      o.check = check;
      std::ostringstream e;
      EXPECT_EQ(run_regen(o, out, e), 2) << name;
      EXPECT_NE(e.str().find(says), std::string::npos) << e.str();
      EXPECT_NE(e.str().find("left alone"), std::string::npos) << e.str();
    }
    EXPECT_EQ(test_support::read_bytes(path(name)), before) << name;
  };
  test_support::write_bytes(path("codes.bin"), "raw codes");
  regen_refuses("codes.bin", "not an HDF5 file");
  fs::copy_file(path("target.h5"), path("quantize.h5"));  // the candidate under a family's name
  regen_refuses("quantize.h5", "a candidate file");
  {
    H5Writer w(path("swiglu.h5"));  // someone else's HDF5 file
    const std::vector<std::uint64_t> shape = {2};
    const std::vector<std::uint8_t> bytes = {1, 2};
    w.add_dataset("/weights", H5Storage::kU8, shape, bytes);
    w.commit();
  }
  regen_refuses("swiglu.h5", "not an mxv golden file");
  // A golden file of the family is regenerated as before.
  write(path("codes.h5"), {generate_family("codes").front()});
  RegenOptions o;
  o.files = {path("codes.h5")};
  EXPECT_EQ(run_regen(o, out, err), 0) << err.str();
}

// check reads expectations only from golden files: a candidate (its outputs come from a kernel
// under test) is pointed at --candidate, and a file without cases checks nothing, so both are
// usage errors rather than a pass or a confusing failure.
TEST_F(GoldenToolTest, CheckRefusesACandidateAndAFileWithoutCases) {
  Provenance prov = Provenance::current("golden_tool_test", "golden_tool_test", kGoldenSeed);
  prov.content = "candidate";
  write_golden_file(path("cand.h5"), prov, {generate_family("codes").front()});
  CheckOptions o;
  o.backend = "emulated";
  o.files = {path("cand.h5")};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(o, out, err), 2);
  EXPECT_NE(err.str().find("is a candidate file, not a golden file"), std::string::npos) << err.str();
  write(path("empty.h5"), {});
  o.files = {path("empty.h5")};
  std::ostringstream e2;
  EXPECT_EQ(run_check(o, out, e2), 2);
  EXPECT_NE(e2.str().find("holds no case"), std::string::npos) << e2.str();
  write_golden_file(path("empty_cand.h5"), prov, {});
  CheckOptions c;
  c.candidate = path("empty_cand.h5");
  std::ostringstream e3;
  EXPECT_EQ(run_check(c, out, e3), 2);
  EXPECT_NE(e3.str().find("holds no case"), std::string::npos) << e3.str();
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
