// Tests of the `mxv fuzz` campaign (fuzz/campaign.h): listing, usage errors (exit 2), a passing
// bounded run with its summary (exit 0), and a planted bug: exit 1 with the minimal counterexample,
// the check library's report, a replay command that reproduces the failure, and the saved failure
// (golden cases where the calls have inputs, a text record for convert, whose inputs come from a seed).
#include "mxv/fuzz/campaign.h"
#include "mxv/golden/golden_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace mxv::fuzz {
namespace {

int run(FuzzOptions o, std::string& out, std::string& err) {
  std::ostringstream os, es;
  const int code = run_fuzz(o, os, es);
  out = os.str();
  err = es.str();
  return code;
}

TEST(FuzzCampaign, ListsEveryProperty) {
  FuzzOptions o;
  o.list = true;
  o.backend = "emulated";
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 0) << err;
  for (const Property& p : properties()) EXPECT_NE(out.find(p.name), std::string::npos) << p.name;
}

TEST(FuzzCampaign, UsageErrorsExitTwo) {
  std::string out, err;
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {"no_such_property"};
  EXPECT_EQ(run(o, out, err), 2);
  EXPECT_NE(err.find("quantize_matches_reference"), std::string::npos) << "lists the valid names: " << err;
  o.properties = {};
  o.backend = "tpu";
  EXPECT_EQ(run(o, out, err), 2);
  o.backend = "emulated";
  o.cases = -3;
  EXPECT_EQ(run(o, out, err), 2);
}

TEST(FuzzCampaign, BoundedRunPassesAndSummarises) {
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {"quantize_matches_reference", "convert_matches_reference"};
  o.cases = 3;
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 0) << out << err;
  EXPECT_NE(out.find("6 cases on emulated in "), std::string::npos) << "names the backend: " << out;
  EXPECT_NE(out.find("cases/s"), std::string::npos) << out;
  EXPECT_NE(out.find("0 failure(s)"), std::string::npos) << out;
}

TEST(FuzzCampaign, TimedRunStopsWhenTheBudgetIsSpent) {
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {"convert_matches_reference"};
  o.minutes = 0.05;  // 3 s
  o.round_cases = 2;
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 0) << out << err;
  EXPECT_EQ(out.find(" 0 cases"), std::string::npos) << "ran at least one round: " << out;
}

// However short the time box, the first round runs whole: a timed run never ends having checked
// nothing. A property named twice runs once.
TEST(FuzzCampaign, ATimedRunChecksEveryPropertyAtLeastOnceAndEachOnce) {
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {"convert_matches_reference", "convert_matches_reference", "swizzle_bijection"};
  o.minutes = 1e-9;
  o.round_cases = 2;
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 0) << out << err;
  EXPECT_NE(out.find("4 cases on emulated in "), std::string::npos) << "one round of 2 cases of each property: " << out;
}

/// A run of one property with every kernel output byte flipped, saving the failure to `record`.
FuzzOptions planted(const std::string& property, int cases, std::uint64_t seed, const std::string& record) {
  std::remove(record.c_str());
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {property};
  o.cases = cases;
  o.seed = seed;
  o.save_failure = record;
  o.tamper = flip_every_byte();
  return o;
}

TEST(FuzzCampaign, PlantedBugFailsWithCounterexampleReplayAndRecord) {
  const std::string record = ::testing::TempDir() + "mxv_fuzz_failure.h5";
  FuzzOptions o = planted("quantize_matches_reference", 4, 77, record);
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 1) << out << err;
  EXPECT_NE(out.find("FAIL quantize_matches_reference on emulated"), std::string::npos) << out;
  EXPECT_NE(out.find("minimal counterexample:"), std::string::npos) << out;
  EXPECT_NE(out.find("mismatch"), std::string::npos) << "the check library's report: " << out;
  const std::string replay = "replay: mxv fuzz --property quantize_matches_reference --backend emulated --seed 77 --cases 4";
  EXPECT_NE(out.find(replay), std::string::npos) << out;
  // A quantize counterexample is stored as golden cases: the call, its inputs, the reference's outputs.
  ASSERT_NE(out.find("saved: " + record + " (golden file"), std::string::npos) << out << err;
  const golden::GoldenFile g = golden::read_golden_file(record);
  ASSERT_EQ(g.cases.size(), 1u);
  EXPECT_EQ(g.cases[0].name, "fuzz-quantize_matches_reference-0");
  EXPECT_EQ(g.cases[0].params.op, golden::Op::kQuantize);
  EXPECT_FALSE(g.cases[0].inputs.empty());
  EXPECT_FALSE(g.cases[0].expected.empty());
  EXPECT_EQ(g.provenance.generator, "mxv fuzz");
  EXPECT_EQ(g.provenance.command_line, replay.substr(std::string("replay: ").size()));
  EXPECT_EQ(g.provenance.seed, 77u);
  // The replay reproduces: same property, seed and count fail again with the same counterexample.
  std::string out2, err2;
  o.save_failure.clear();
  EXPECT_EQ(run(o, out2, err2), 1);
  const auto cx = [](const std::string& s) { return s.substr(s.find("minimal counterexample:"), s.find("report:") - s.find("minimal counterexample:")); };
  EXPECT_EQ(cx(out), cx(out2));
}

TEST(FuzzCampaign, ConvertFailureIsSavedAsTextRecord) {
  const std::string record = ::testing::TempDir() + "mxv_fuzz_convert_failure.txt";
  const FuzzOptions o = planted("convert_matches_reference", 2, 5, record);
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 1) << out << err;
  std::ifstream f(record);
  ASSERT_TRUE(f.good()) << record;
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str().rfind("mxv-fuzz-failure 1\nproperty: convert_matches_reference\nbackend: emulated\nseed: 5\ncases: 2\n", 0), 0u)
      << text.str();
  EXPECT_NE(text.str().find("replay: mxv fuzz --property convert_matches_reference"), std::string::npos);
  EXPECT_NE(text.str().find("counterexample:\n"), std::string::npos);
}

}  // namespace
}  // namespace mxv::fuzz
