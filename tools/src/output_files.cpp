// OutputBatch (output_files.h). The order of checks follows what a user can fix: a missing
// path, then what the path is (directory, device), then its folder, then clashes with the
// call's other files. Staging uses mkstemp in the target's folder so that the final rename is
// atomic (same file system) and never reuses a name the user might own.
#include "mxv/io/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace mxv::io {
namespace fs = std::filesystem;

namespace {

std::string in_quotes(std::string_view s) {
  std::string out = "'";
  out.append(s);
  out += '\'';
  return out;
}

[[noreturn]] void refuse(std::string_view option, const std::string& path, std::string_view reason) {
  std::string msg(option);
  msg.append(": ").append(in_quotes(path)).append(" ").append(reason);
  throw std::invalid_argument(msg);
}

std::string errno_text() { return std::strerror(errno); }

// The umask, read without changing it for longer than the two calls.
mode_t current_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

std::string folder_of(const std::string& target) {
  const fs::path parent = fs::path(target).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// Writes all of `bytes` to `fd`; false with errno set on failure.
bool write_all(int fd, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// ---- temporaries removed when the program is interrupted ----
// Ctrl-C (SIGINT), SIGTERM or SIGHUP between staging and renaming would leave a temporary file
// behind. Every temporary is recorded here; the handler removes the recorded ones (unlink is
// async-signal-safe) and re-raises the signal with its default action, so the exit status still
// says which signal ended the program. A fixed table, because a handler may not allocate.
constexpr std::size_t kMaxTracked = 64;
constexpr std::size_t kMaxTrackedPath = 4096;
char g_tracked[kMaxTracked][kMaxTrackedPath];
volatile std::sig_atomic_t g_tracked_used[kMaxTracked];

extern "C" void remove_tracked_and_reraise(int sig) {
  for (std::size_t i = 0; i < kMaxTracked; ++i) {
    if (g_tracked_used[i] != 0) ::unlink(g_tracked[i]);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

void track_temp(const std::string& path) {
  static const bool installed = [] {
    for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction old {};
      // Leave a signal the program ignores ignored (a background job's SIGINT, nohup's SIGHUP).
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      struct sigaction sa {};
      sa.sa_handler = remove_tracked_and_reraise;
      sigemptyset(&sa.sa_mask);
      ::sigaction(sig, &sa, nullptr);
    }
    return true;
  }();
  (void)installed;
  if (path.size() >= kMaxTrackedPath) return;
  for (std::size_t i = 0; i < kMaxTracked; ++i) {
    if (g_tracked_used[i] == 0) {
      std::memcpy(g_tracked[i], path.c_str(), path.size() + 1);
      g_tracked_used[i] = 1;
      return;
    }
  }
}

}  // namespace

void forget_temp(const std::string& path) {
  for (std::size_t i = 0; i < kMaxTracked; ++i) {
    if (g_tracked_used[i] != 0 && path == g_tracked[i]) g_tracked_used[i] = 0;
  }
}

std::string create_temp_beside(const std::string& target) {
  const std::string name = fs::path(target).filename().string();
  // A long name would push the temporary's past NAME_MAX; it then goes without the name.
  std::string temp = folder_of(target) + "/." + (name.size() > 200 ? std::string() : name) + ".mxv-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    throw std::runtime_error(in_quotes(target) + " cannot be written: creating a temporary file in " +
                             in_quotes(folder_of(target)) + ": " + errno_text());
  }
  const bool ok = ::fchmod(fd, static_cast<mode_t>(0666) & ~current_umask()) == 0;
  const std::string why = errno_text();
  ::close(fd);
  if (!ok) {
    ::unlink(temp.c_str());
    throw std::runtime_error(in_quotes(target) + " cannot be written: setting the mode of " + in_quotes(temp) + ": " + why);
  }
  track_temp(temp);
  return temp;
}

FileIdentity FileIdentity::of(const std::string& path) {
  FileIdentity id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
  }
  std::error_code ec;
  fs::path normal = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) normal = fs::absolute(path, ec).lexically_normal();
  id.normal_path = normal.string();
  return id;
}

bool FileIdentity::same_file(const FileIdentity& other) const {
  if (exists && other.exists) return device == other.device && inode == other.inode;
  return normal_path == other.normal_path;
}

OutputBatch::~OutputBatch() { remove_temps(); }

void OutputBatch::input(std::string_view option, const std::string& path) { declare(option, path, false); }

void OutputBatch::output(std::string_view option, const std::string& path) { declare(option, path, true); }

void OutputBatch::declare(std::string_view option, const std::string& path, bool is_output) {
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": a file is required");
  Entry e;
  e.option = option;
  e.path = path;
  e.target = path;
  e.identity = FileIdentity::of(path);
  e.is_output = is_output;
  if (is_output) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) refuse(option, path, "is a directory; an output is a file");
      if (!S_ISREG(st.st_mode)) refuse(option, path, "exists and is not a regular file (a device or pipe); refusing to replace it");
      // Through a symbolic link the link's target is replaced, not the link.
      struct stat lst {};
      if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) e.target = e.identity.normal_path;
    }
    const std::string folder = folder_of(e.target);
    struct stat fst {};
    if (::stat(folder.c_str(), &fst) != 0) refuse(option, path, "cannot be written: folder " + in_quotes(folder) + ": " + errno_text());
    if (!S_ISDIR(fst.st_mode)) refuse(option, path, "cannot be written: " + in_quotes(folder) + " is not a folder");
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
      refuse(option, path, "cannot be written: folder " + in_quotes(folder) + ": " + errno_text());
    }
  }
  for (const Entry& other : entries_) {
    if (!(is_output || other.is_output) || !e.identity.same_file(other.identity)) continue;
    if (!other.is_output) {
      refuse(option, path, "is also the input " + other.option + "; an output never replaces an input");
    }
    if (!is_output) {
      refuse(option, path, "is also the output " + other.option + "; an output never replaces an input");
    }
    refuse(option, path, "is also the output " + other.option + "; each output needs its own file");
  }
  entries_.push_back(std::move(e));
}

OutputBatch::Entry& OutputBatch::output_entry(std::string_view option) {
  for (Entry& e : entries_) {
    if (e.is_output && e.option == option) return e;
  }
  throw std::logic_error("OutputBatch: output " + std::string(option) + " was not declared");
}

void OutputBatch::set(std::string_view option, std::vector<std::uint8_t> bytes) {
  Entry& e = output_entry(option);
  e.bytes = std::move(bytes);
  e.has_bytes = true;
}

void OutputBatch::set(std::string_view option, std::span<const std::uint8_t> bytes) {
  set(option, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

void OutputBatch::remove_temps() {
  for (Entry& e : entries_) {
    if (!e.temp.empty()) {
      ::unlink(e.temp.c_str());
      forget_temp(e.temp);
    }
    e.temp.clear();
  }
}

void OutputBatch::commit() {
  for (const Entry& e : entries_) {
    if (e.is_output && !e.has_bytes) throw std::logic_error("OutputBatch: output " + e.option + " has no bytes");
  }
  // 1. Stage every output in a temporary file of its own folder.
  for (Entry& e : entries_) {
    if (!e.is_output) continue;
    try {
      e.temp = create_temp_beside(e.target);
    } catch (const std::runtime_error& error) {
      remove_temps();
      throw std::runtime_error(e.option + ": " + error.what());
    }
    const int fd = ::open(e.temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    const bool ok = fd >= 0 && write_all(fd, e.bytes);
    const std::string why = errno_text();
    const bool closed = fd >= 0 && ::close(fd) == 0;
    if (!ok || !closed) {
      remove_temps();
      throw std::runtime_error(e.option + ": " + in_quotes(e.path) + " cannot be written: " + (ok ? errno_text() : why));
    }
  }
  // 2. Every output is complete: rename them into place.
  std::string replaced;
  for (Entry& e : entries_) {
    if (!e.is_output) continue;
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) {
      const std::string why = errno_text();
      remove_temps();
      throw std::runtime_error(e.option + ": " + in_quotes(e.path) + " cannot be written: renaming into place: " + why +
                               (replaced.empty() ? std::string() : "; already written:" + replaced));
    }
    forget_temp(e.temp);
    e.temp.clear();
    replaced += " " + in_quotes(e.path);
  }
}

}  // namespace mxv::io
