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
#include <vector>

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

std::string output_target(std::string_view option, const std::string& path) {
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": a file is required");
  // Links followed by hand, so that a dangling link leads to the file it names, which is created.
  fs::path target = path;
  for (int hops = 0;; ++hops) {
    struct stat lst {};
    if (::lstat(target.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) break;
    if (hops == 40) refuse(option, path, "cannot be written: too many levels of symbolic links");
    std::error_code ec;
    const fs::path next = fs::read_symlink(target, ec);
    if (ec) refuse(option, path, "cannot be written: reading the symbolic link: " + ec.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse(option, path, "is a directory; an output is a file");
    if (!S_ISREG(st.st_mode)) refuse(option, path, "exists and is not a regular file (a device or pipe); refusing to replace it");
  }
  const std::string folder = folder_of(target.string());
  struct stat fst {};
  if (::stat(folder.c_str(), &fst) != 0) refuse(option, path, "cannot be written: folder " + in_quotes(folder) + ": " + errno_text());
  if (!S_ISDIR(fst.st_mode)) refuse(option, path, "cannot be written: " + in_quotes(folder) + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    refuse(option, path, "cannot be written: folder " + in_quotes(folder) + ": " + errno_text());
  }
  return target.string();
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

OutputBatch::~OutputBatch() { remove_staged(); }

void OutputBatch::input(std::string_view option, const std::string& path) { declare(option, path, false); }

void OutputBatch::output(std::string_view option, const std::string& path) { declare(option, path, true); }

void OutputBatch::declare(std::string_view option, const std::string& path, bool is_output) {
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": a file is required");
  Entry e;
  e.option = option;
  e.path = path;
  e.target = is_output ? output_target(option, path) : path;
  e.identity = FileIdentity::of(e.target);
  e.is_output = is_output;
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

void OutputBatch::remove_staged() {
  // Each name is a recorded temporary (create_temp_beside, track_temp): removed and forgotten.
  const auto discard = [](std::string& name) {
    if (!name.empty()) {
      ::unlink(name.c_str());
      forget_temp(name);
    }
    name.clear();
  };
  for (Entry& e : entries_) {
    discard(e.temp);
    discard(e.kept);
  }
}

namespace {

// A second name for the file at `target`: a hard link at `kept`, or where the file system has no
// hard links a copy with the same mode. False with errno set when neither can be made.
bool keep_previous(const std::string& target, const std::string& kept) {
  if (::link(target.c_str(), kept.c_str()) == 0) return true;
  if (errno != EPERM && errno != ENOTSUP && errno != EOPNOTSUPP && errno != EXDEV) return false;
  const int in = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return false;
  struct stat st {};
  const int out = ::fstat(in, &st) == 0 ? ::open(kept.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777) : -1;
  bool ok = out >= 0;
  std::vector<std::uint8_t> buf(1u << 16);
  while (ok) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = write_all(out, std::span<const std::uint8_t>(buf.data(), static_cast<std::size_t>(n)));
  }
  const int saved = errno;
  ::close(in);
  if (out >= 0 && ::close(out) != 0) ok = false;
  if (!ok && out >= 0) ::unlink(kept.c_str());
  errno = saved;
  return ok;
}

}  // namespace

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
      remove_staged();
      throw std::runtime_error(e.option + ": " + error.what());
    }
    const int fd = ::open(e.temp.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    const bool ok = fd >= 0 && write_all(fd, e.bytes);
    const std::string why = errno_text();
    const bool closed = fd >= 0 && ::close(fd) == 0;
    if (!ok || !closed) {
      remove_staged();
      throw std::runtime_error(e.option + ": " + in_quotes(e.path) + " cannot be written: " + (ok ? errno_text() : why));
    }
  }
  // 2. Keep every file about to be replaced under a second name (the temporary's name plus
  // "-kept": mkstemp made that name unique), so that a rename failing in step 3 can be undone.
  for (Entry& e : entries_) {
    if (!e.is_output) continue;
    struct stat st {};
    if (::lstat(e.target.c_str(), &st) != 0) continue;  // nothing there yet
    const std::string kept = e.temp + "-kept";
    if (!keep_previous(e.target, kept)) {
      const std::string why = errno_text();
      remove_staged();
      throw std::runtime_error(e.option + ": " + in_quotes(e.path) +
                               " cannot be replaced safely: keeping the previous file aside: " + why);
    }
    e.kept = kept;
    track_temp(kept);
  }
  // 3. Every output is complete: rename them into place; a failure puts back the ones renamed.
  std::vector<Entry*> renamed;
  for (Entry& e : entries_) {
    if (!e.is_output) continue;
    if (std::rename(e.temp.c_str(), e.target.c_str()) != 0) {
      const std::string why = errno_text();
      std::string undo;
      for (Entry* done : renamed) {
        const bool back = done->kept.empty() ? ::unlink(done->target.c_str()) == 0
                                             : std::rename(done->kept.c_str(), done->target.c_str()) == 0;
        if (!back) {  // a previous file that could not be put back stays, named in the message
          undo += "; " + in_quotes(done->path) + " could not be put back (" + errno_text() +
                  (done->kept.empty() ? std::string(")") : ", its previous file is " + in_quotes(done->kept) + ")");
        }
        forget_temp(done->kept);  // renamed back, or left for the user: not to be removed either way
        done->kept.clear();
      }
      remove_staged();
      throw std::runtime_error(e.option + ": " + in_quotes(e.path) + " cannot be written: renaming into place: " + why +
                               (renamed.empty() ? std::string()
                                                : undo.empty() ? "; the outputs renamed before it were put back" : undo));
    }
    forget_temp(e.temp);
    e.temp.clear();
    renamed.push_back(&e);
  }
  remove_staged();  // the temporaries are renamed by now: this drops the second names
}

}  // namespace mxv::io
