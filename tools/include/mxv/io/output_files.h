// The files one verb call reads and writes, and writing its outputs all or nothing
// (docs/cli.md, "Files"). A verb declares its inputs and outputs before doing any work, so a
// bad output path fails in milliseconds, and an output that names an input (or another output)
// is refused instead of destroying the input. Outputs are written to unique temporary files in
// the target's own folder and renamed over their targets only once every output of the call is
// written: after an error no output and no temporary file exists, and no other file was touched.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mxv::io {

/// What makes two paths the same file: device and inode when the file exists, else the
/// normalised absolute path (symbolic links in the existing part resolved).
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string normal_path;

  static FileIdentity of(const std::string& path);
  bool same_file(const FileIdentity& other) const;
};

/// Where the bytes of output `path` go, and whether they may go there: through a symbolic link
/// (a dangling one too) the link's final target, so the link stays a link. Throws
/// std::invalid_argument ("OPTION: 'PATH' REASON") when `path` is empty, is (or links to) a
/// directory or an existing file that is not a regular file (a device, a pipe), or when its folder
/// is missing or not writable. Every writer of the command line checks its outputs here, so none
/// replaces a device or a pipe.
std::string output_target(std::string_view option, const std::string& path);

/// Creates an empty file with a fresh name in `target`'s folder (".NAME.mxv-XXXXXX" by mkstemp,
/// so no existing file is reused) and mode 0666 & ~umask, for a writer that needs a path of its
/// own (HDF5 opens files by name). Rename it over `target` when complete; remove it otherwise.
/// Throws std::runtime_error naming `target` and the system's reason.
/// The temporary is also recorded so that SIGINT, SIGTERM or SIGHUP remove it before the program
/// ends (the signal then takes its default action); forget_temp() drops the record once the file
/// was renamed into place or removed.
std::string create_temp_beside(const std::string& target);
void forget_temp(const std::string& path);

/// One call's files. Usage: declare every input and output (each declaration is checked at
/// once and throws std::invalid_argument naming the option, the path and the rule), compute,
/// set() each output's bytes, commit(). Destroying an uncommitted batch leaves nothing behind.
class OutputBatch {
 public:
  OutputBatch() = default;
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();

  /// An input of the call: outputs may not name it.
  void input(std::string_view option, const std::string& path);
  /// An output of the call: a non-empty path whose folder exists and is writable, that is not a
  /// directory, and that names no declared input or output.
  void output(std::string_view option, const std::string& path);
  /// The bytes of the declared output `option`.
  void set(std::string_view option, std::vector<std::uint8_t> bytes);
  void set(std::string_view option, std::span<const std::uint8_t> bytes);
  /// Writes every output (each must have been set) to a fresh temporary file next to its target
  /// with mode 0666 & ~umask, then renames them all into place. Throws std::runtime_error naming
  /// the output and the reason; every temporary file is removed on failure. All or nothing: an
  /// existing target is first kept under a second name (a hard link beside it), so when a later
  /// rename fails the outputs already renamed are put back as they were (restored, or removed
  /// where there was no file).
  void commit();

 private:
  struct Entry {
    std::string option;
    std::string path;    // as typed
    std::string target;  // where the bytes go: the path with symbolic links resolved
    FileIdentity identity;
    bool is_output = false;
    bool has_bytes = false;
    std::vector<std::uint8_t> bytes;
    std::string temp;  // the temporary file while staged
    std::string kept;  // while committing: a hard link to the target's previous file, if any
  };
  void declare(std::string_view option, const std::string& path, bool is_output);
  Entry& output_entry(std::string_view option);
  /// Removes every staged temporary and every second name of a replaced file that is still recorded.
  void remove_staged();
  std::vector<Entry> entries_;
};

}  // namespace mxv::io
