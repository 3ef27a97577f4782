// Tests of the `mxv fuzz` campaign (fuzz/campaign.h): listing, usage errors (exit 2), a passing
// bounded run with its summary (exit 0), and a planted bug: exit 1 with the minimal counterexample,
// the check library's report, a replay command that reproduces the failure, and the saved record.
#include "mxv/fuzz/campaign.h"

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
  EXPECT_NE(out.find("6 cases"), std::string::npos) << out;
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

TEST(FuzzCampaign, PlantedBugFailsWithCounterexampleReplayAndRecord) {
  const std::string record = ::testing::TempDir() + "mxv_fuzz_failure.txt";
  std::remove(record.c_str());
  FuzzOptions o;
  o.backend = "emulated";
  o.properties = {"quantize_matches_reference"};
  o.cases = 4;
  o.seed = 77;
  o.save_failure = record;
  o.tamper = flip_every_byte();
  std::string out, err;
  EXPECT_EQ(run(o, out, err), 1) << out << err;
  EXPECT_NE(out.find("FAIL quantize_matches_reference on emulated"), std::string::npos) << out;
  EXPECT_NE(out.find("minimal counterexample:"), std::string::npos) << out;
  EXPECT_NE(out.find("mismatch"), std::string::npos) << "the check library's report: " << out;
  const std::string replay = "replay: mxv fuzz --property quantize_matches_reference --backend emulated --seed 77 --cases 4";
  EXPECT_NE(out.find(replay), std::string::npos) << out;
  std::ifstream f(record);
  ASSERT_TRUE(f.good()) << record;
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str().rfind("mxv-fuzz-failure 1\nproperty: quantize_matches_reference\n", 0), 0u) << text.str();
  EXPECT_NE(text.str().find("seed: 77\ncases: 4\n"), std::string::npos) << text.str();
  // The replay reproduces: same property, seed and count fail again with the same counterexample.
  std::string out2, err2;
  o.save_failure.clear();
  EXPECT_EQ(run(o, out2, err2), 1);
  const auto cx = [](const std::string& s) { return s.substr(s.find("minimal counterexample:"), s.find("report:") - s.find("minimal counterexample:")); };
  EXPECT_EQ(cx(out), cx(out2));
}

}  // namespace
}  // namespace mxv::fuzz
