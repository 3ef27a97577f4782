// read_input (input_file.h): open once, decide by fstat what the path is, then read it whole.
// A regular file is read into a buffer of its stat size; a pipe in growing chunks up to a cap.
#include "mxv/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <new>
#include <stdexcept>

namespace mxv::io {
namespace {

[[noreturn]] void refuse(std::string_view option, const std::string& path, const std::string& reason) {
  std::string msg(option);
  msg.append(": '").append(path).append("' ").append(reason);
  throw std::invalid_argument(msg);
}

// Closes the descriptor on every path out of read_input.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads until end of file into `out`, first sized for `expected` bytes (plus one, to see the end
// without a second buffer), growing by half when full; stops once more than `cap` bytes arrived.
// Returns false with errno set on a read error.
bool read_to_end(int fd, std::vector<std::uint8_t>& out, std::size_t expected, std::uint64_t cap, bool& over_cap) {
  std::size_t used = 0;
  over_cap = false;
  out.resize(expected + 1);
  while (true) {
    if (used == out.size()) out.resize(used + std::max<std::size_t>(65536, used / 2));
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > cap) {
      over_cap = true;
      break;
    }
  }
  out.resize(used);
  return true;
}

// Half the physical memory, or no limit when the system does not say.
std::uint64_t half_the_memory() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(pages) / 2u * static_cast<std::uint64_t>(page);
}

}  // namespace

std::uint64_t pipe_cap(std::uint64_t max_pipe_bytes) { return std::min(max_pipe_bytes, half_the_memory()); }

std::vector<std::uint8_t> read_input(std::string_view option, const std::string& path, bool allow_empty,
                                     std::uint64_t max_pipe_bytes) {
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": a file is required");
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) refuse(option, path, std::string("cannot be opened: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) refuse(option, path, std::string("cannot be examined: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) refuse(option, path, "is a directory, not a file");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    refuse(option, path, "is a device, not a regular file or a pipe (a device such as /dev/zero has no end)");
  }
  std::vector<std::uint8_t> bytes;
  bool over_cap = false;
  try {
    if (S_ISREG(st.st_mode)) {
      // The stat size is a hint: a file that grows while we read is still read to its end.
      if (!read_to_end(f.fd, bytes, static_cast<std::size_t>(st.st_size), std::numeric_limits<std::uint64_t>::max(),
                       over_cap)) {
        refuse(option, path, std::string("cannot be read: ") + std::strerror(errno));
      }
    } else if (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) {
      const std::uint64_t cap = pipe_cap(max_pipe_bytes);
      if (!read_to_end(f.fd, bytes, 65536, cap, over_cap)) {
        refuse(option, path, std::string("cannot be read: ") + std::strerror(errno));
      }
      if (over_cap) {
        refuse(option, path, "delivered more than " + std::to_string(cap) + " bytes" +
                                 (cap < max_pipe_bytes ? " (half this machine's memory)" : ""));
      }
    } else {
      refuse(option, path, "is not a regular file or a pipe");
    }
  } catch (const std::bad_alloc&) {
    refuse(option, path, "does not fit in memory (" + std::to_string(st.st_size) + " bytes)");
  } catch (const std::length_error&) {
    refuse(option, path, "does not fit in memory (" + std::to_string(st.st_size) + " bytes)");
  }
  if (bytes.empty() && !allow_empty) refuse(option, path, "is empty (0 bytes)");
  return bytes;
}

}  // namespace mxv::io
