// CliFolder (cli_fixture.h). The fixture bytes are written here by hand (see the table in
// docs/cli-bad-inputs.md); the program under test never creates them.
#include "cli_fixture.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "mxv/test_support/scratch_dir.h"

#ifndef MXV_EXE
#error "MXV_EXE: the path of the mxv program under test"
#endif

namespace mxv::cli_test {
namespace fs = std::filesystem;

namespace {

std::string floats(const std::vector<float>& v) {
  std::string s;
  for (const float f : v) {
    const auto u = std::bit_cast<std::uint32_t>(f);
    for (int b = 0; b < 4; ++b) s += static_cast<char>((u >> (8 * b)) & 0xFF);
  }
  return s;
}

// The word `mxv` (at the start or after a space or '|', followed by a space or the end) becomes
// the quoted program path.
std::string with_program(const std::string& command) {
  std::string out;
  for (std::size_t i = 0; i < command.size();) {
    const bool starts = command.compare(i, 3, "mxv") == 0 && (i == 0 || command[i - 1] == ' ' || command[i - 1] == '|') &&
                        (i + 3 == command.size() || command[i + 3] == ' ');
    if (starts) {
      out += std::string("'") + MXV_EXE + "'";
      i += 3;
    } else {
      out += command[i++];
    }
  }
  return out;
}

}  // namespace

CliFolder::CliFolder(const std::string& name) {
  const fs::path base = fs::temp_directory_path() / ("mxv_cli_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(base);
  dir_ = base / "case";
  logs_ = base / "logs";
  fs::create_directories(dir_);
  fs::create_directories(logs_);
  std::vector<float> act(64), gemm(64);
  for (int i = 0; i < 64; ++i) {
    act[static_cast<std::size_t>(i)] = static_cast<float>(i) / 4.0f - 8.0f;
    gemm[static_cast<std::size_t>(i)] = static_cast<float>(i) / 8.0f - 4.0f;
  }
  test_support::write_bytes(dir_ / "act.f32", floats(act));
  std::string bf16;
  const std::string a = floats(act);
  for (std::size_t i = 0; i < a.size(); i += 4) bf16 += a.substr(i + 2, 2);  // high halves, little-endian
  test_support::write_bytes(dir_ / "act.bf16", bf16);
  test_support::write_bytes(dir_ / "gemm.f32", floats(gemm));
  test_support::write_bytes(dir_ / "q.e", std::string(32, '\x21'));
  test_support::write_bytes(dir_ / "q.s", std::string(4, '\x38'));
  test_support::write_bytes(dir_ / "q.g", floats({1.0f}));
  test_support::write_bytes(dir_ / "mx.e", std::string(32, '\x21'));
  test_support::write_bytes(dir_ / "mx.s", std::string(2, '\x7F'));
  test_support::write_bytes(dir_ / "w.e", std::string(64, '\x21'));
  test_support::write_bytes(dir_ / "w.s", std::string(8, '\x38'));
  test_support::write_bytes(dir_ / "codes.e2m1", std::string("\x00\x01\x02\x03\x04\x05\x06\x07", 8));
  test_support::write_bytes(dir_ / "bad.e2m1", "\x1F");
  test_support::write_bytes(dir_ / "odd.f32", std::string(6, '\x01'));
  test_support::write_bytes(dir_ / "empty.bin", "");
  test_support::write_bytes(dir_ / "out.e.tmp", "keep me");
  fs::create_directory(dir_ / "dir");
  fs::create_symlink("act.f32", dir_ / "alias.f32");
}

CliFolder::~CliFolder() {
  std::error_code ec;
  fs::remove_all(dir_.parent_path(), ec);
}

Snapshot CliFolder::snapshot() const {
  Snapshot s;
  for (auto it = fs::recursive_directory_iterator(dir_); it != fs::recursive_directory_iterator(); ++it) {
    const std::string rel = fs::relative(it->path(), dir_).string();
    if (it->is_symlink()) {
      s[rel] = "-> " + fs::read_symlink(it->path()).string();
    } else if (it->is_directory()) {
      s[rel] = "<dir>";
    } else {
      s[rel] = test_support::read_text(it->path());
    }
  }
  return s;
}

CliFolder::Result CliFolder::run(const std::string& command) const {
  if (command.find('\'') != std::string::npos) throw std::invalid_argument("commands may not contain single quotes");
  const std::string log = (logs_ / "output.txt").string();
  const std::string shell = "cd '" + dir_.string() + "' && umask 022 && timeout 60 sh -c '" + with_program(command) +
                            "' > '" + log + "' 2>&1";
  const int status = std::system(shell.c_str());
  Result r;
  r.output = test_support::read_text(log);
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    // sh reports a child killed by a signal as 128 + the signal number.
    if (r.exit_code > 128 && r.exit_code < 160) r.exit_code = -1;
  }
  return r;
}

std::vector<std::string> changes(const Snapshot& before, const Snapshot& after, const std::vector<std::string>& allowed) {
  auto is_allowed = [&](const std::string& name) {
    for (const std::string& a : allowed) {
      if (a == name) return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (const auto& [name, content] : before) {
    const auto it = after.find(name);
    if (it == after.end()) {
      out.push_back("removed " + name);
    } else if (it->second != content && !is_allowed(name)) {
      out.push_back("changed " + name);
    }
  }
  for (const auto& [name, content] : after) {
    if (before.count(name) == 0 && !is_allowed(name)) out.push_back("stray file " + name);
  }
  for (const std::string& a : allowed) {
    if (after.count(a) == 0) out.push_back("missing output " + a);
  }
  return out;
}

unsigned mode_of(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

}  // namespace mxv::cli_test
