// The folder a CLI test runs `mxv` in: the fixture files of docs/cli-bad-inputs.md, a snapshot
// of everything in the folder, and the comparison that says what a call changed. Shared by the
// catalogue test (mxv_cli_test.cpp) and the property test (mxv_cli_property_test.cpp).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mxv::cli_test {

/// Every entry under a folder, by relative path: a file's bytes, "-> target" for a symbolic
/// link, "<dir>" for a folder.
using Snapshot = std::map<std::string, std::string>;

/// A fresh folder under the system temporary folder holding the fixtures; removed on destruction.
class CliFolder {
 public:
  explicit CliFolder(const std::string& name);
  ~CliFolder();
  CliFolder(const CliFolder&) = delete;
  CliFolder& operator=(const CliFolder&) = delete;

  const std::filesystem::path& path() const { return dir_; }
  Snapshot snapshot() const;

  struct Result {
    int exit_code = -1;  ///< -1: killed by a signal (a crash)
    std::string output;  ///< standard output and standard error together
  };
  /// Runs `command` (shell text; the word `mxv` is the program under test) in the folder with
  /// umask 022 and a 60 s limit; captures both streams outside the folder.
  Result run(const std::string& command) const;

 private:
  std::filesystem::path dir_;
  std::filesystem::path logs_;
};

/// What differs between a snapshot before and after a call, one line per difference (empty:
/// nothing). `allowed` names entries the call was asked to create or replace.
std::vector<std::string> changes(const Snapshot& before, const Snapshot& after, const std::vector<std::string>& allowed);

/// Permission bits of a file in the folder.
unsigned mode_of(const std::filesystem::path& file);

}  // namespace mxv::cli_test
