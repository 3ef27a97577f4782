// The real `mxv` program on the bad-input catalogue of docs/cli-bad-inputs.md: one test per
// table row, run in a fresh fixture folder. Each row checks the exit code, a message fragment,
// that every fixture is byte-identical afterwards and that the folder holds exactly the fixtures
// plus the row's outputs (mode 0644 under umask 022). The checks themselves are shown to fail on
// planted damage (CliChecks below), so a row cannot pass by a check that never looks.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixture.h"

#ifndef MXV_CLI_CATALOGUE
#error "MXV_CLI_CATALOGUE: the path of docs/cli-bad-inputs.md"
#endif

namespace mxv::cli_test {
namespace {

struct Row {
  int number = 0;
  std::string command;
  int exit_code = 0;
  std::string message;
  std::vector<std::string> writes;
};

// gtest prints a failing row by its number and command.
void PrintTo(const Row& row, std::ostream* os) { *os << "row " << row.number << ": " << row.command; }

// The text between the first pair of backticks ("" for ``); `cell` itself if it has none.
std::string code_span(const std::string& cell) {
  const std::size_t a = cell.find('`');
  if (a == std::string::npos) return cell;
  const std::size_t b = cell.find('`', a + 1);
  return b == std::string::npos ? cell : cell.substr(a + 1, b - a - 1);
}

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(' ');
  const std::size_t b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Splits a table line on '|' that is not escaped as "\|" (a pipe inside a command).
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
    } else if (line[i] == '|') {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += line[i];
    }
  }
  return out;
}

std::vector<Row> catalogue() {
  std::ifstream in(MXV_CLI_CATALOGUE);
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("| ")) continue;
    const std::vector<std::string> c = cells(line);
    if (c.size() != 5 || c[0].empty() || c[0].find_first_not_of("0123456789") != std::string::npos) continue;
    Row r;
    r.number = std::stoi(c[0]);
    r.command = code_span(c[1]);
    r.exit_code = std::stoi(c[2]);
    r.message = code_span(c[3]);
    std::stringstream writes(c[4]);
    std::string w;
    while (std::getline(writes, w, ',')) {
      w = code_span(trim(w));
      if (!w.empty() && w != "-") r.writes.push_back(w);
    }
    rows.push_back(r);
  }
  return rows;
}

TEST(CliCatalogue, HasAtLeastSixtyNumberedRows) {
  const std::vector<Row> rows = catalogue();
  ASSERT_GE(rows.size(), 60u) << "read " << MXV_CLI_CATALOGUE;
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].number, static_cast<int>(i + 1)) << rows[i].command;
}

class BadInput : public ::testing::TestWithParam<Row> {};

TEST_P(BadInput, ExitCodeMessageAndFolder) {
  const Row& row = GetParam();
  const CliFolder folder("row" + std::to_string(row.number));
  const Snapshot before = folder.snapshot();
  const CliFolder::Result r = folder.run(row.command);
  SCOPED_TRACE("row " + std::to_string(row.number) + ": " + row.command + "\noutput:\n" + r.output);
  EXPECT_EQ(r.exit_code, row.exit_code) << "(-1: killed by a signal)";
  EXPECT_NE(r.output.find(row.message), std::string::npos) << "expected the message to contain: " << row.message;
  for (const std::string& change : changes(before, folder.snapshot(), row.writes)) ADD_FAILURE() << change;
  for (const std::string& w : row.writes) EXPECT_EQ(mode_of(folder.path() / w), 0644u) << w;
  // One line of error, not a wall of text, for every refusal a verb makes itself.
  const bool verb_refusal = r.output.starts_with("mxv quantize: ") || r.output.starts_with("mxv dequantize: ") ||
                            r.output.starts_with("mxv convert: ") || r.output.starts_with("mxv swiglu-quantize: ");
  if (row.exit_code == 2 && verb_refusal && r.output.find("did you mean") == std::string::npos) {
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "more than one line";
  }
}

std::string row_name(const ::testing::TestParamInfo<Row>& info) { return "row" + std::to_string(info.param.number); }

INSTANTIATE_TEST_SUITE_P(Docs, BadInput, ::testing::ValuesIn(catalogue()), row_name);

// The checks can fail: a changed fixture, a stray file, a removed file and a missing output are
// each reported.
TEST(CliChecks, ReportEveryKindOfDamage) {
  const CliFolder folder("checks");
  const Snapshot before = folder.snapshot();
  EXPECT_TRUE(changes(before, folder.snapshot(), {}).empty());
  folder.run("printf x >> act.f32");
  folder.run("touch .out.e.mxv-ab12cd");
  folder.run("rm q.g");
  const std::vector<std::string> found = changes(before, folder.snapshot(), {"out.f32"});
  const std::vector<std::string> expected = {"changed act.f32", "removed q.g", "stray file .out.e.mxv-ab12cd",
                                             "missing output out.f32"};
  EXPECT_EQ(found, expected);
  EXPECT_EQ(folder.run("kill -SEGV $$").exit_code, -1);  // a crash is told apart from exit codes
}

}  // namespace
}  // namespace mxv::cli_test
