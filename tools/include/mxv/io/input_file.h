// Reading the inputs of a verb: a regular file or a pipe, read whole, with errors that name the
// option, the path and the reason from the operating system (docs/cli.md, "Files").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::io {

/// How much a pipe may deliver before read_input gives up: a pipe has no size to check in
/// advance, and `cat /dev/zero |` never ends. 2^36 bytes (64 GiB) is above any shape the verbs
/// are meant for and below what would exhaust a workstation silently.
inline constexpr std::uint64_t kMaxPipeBytes = std::uint64_t{1} << 36;

/// What read_input lets a pipe deliver: `max_pipe_bytes`, but never more than half the machine's
/// physical memory, since a buffer doubling past that ends in the out-of-memory killer rather
/// than in a refusal.
std::uint64_t pipe_cap(std::uint64_t max_pipe_bytes);

/// Reads all of `path` for the option `option` ("--input"). Accepts a regular file or a pipe
/// (named pipe, /dev/stdin fed by a pipe); refuses a directory, a character or block device
/// (/dev/zero would never end, a terminal would wait for typing), a missing or unreadable file
/// and, unless `allow_empty`, an empty one. Throws std::invalid_argument
/// "<option>: '<path>' <reason>" on every refusal.
std::vector<std::uint8_t> read_input(std::string_view option, const std::string& path, bool allow_empty = false,
                                     std::uint64_t max_pipe_bytes = kMaxPipeBytes);

}  // namespace mxv::io
