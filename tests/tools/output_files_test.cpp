// Tests of OutputBatch (tools/include/mxv/io/output_files.h): all-or-nothing writes with
// unique temporary names, clashes by inode and by normalised path, folder checks, mode from the
// umask, symbolic links written through, and nothing left behind on failure, a failed rename
// included.
#include "mxv/io/output_files.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "mxv/test_support/refusal.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv::io {
namespace {

using test_support::refusal;

namespace fs = std::filesystem;

class OutputBatchTest : public test_support::ScratchDirTest {
 protected:
  void write(const std::string& name, const std::string& bytes) const { test_support::write_bytes(path(name), bytes); }
  std::string read(const std::string& name) const { return test_support::read_text(path(name)); }
  static std::vector<std::uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
  /// What commit() throws, or "" when it succeeds.
  static std::string commit_failure(OutputBatch& b) {
    try {
      b.commit();
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return {};
  }
};

TEST_F(OutputBatchTest, WritesEveryOutputAndNothingElse) {
  write("old.bin", "old");
  OutputBatch b;
  b.output("--a", path("a.bin"));
  b.output("--b", path("old.bin"));
  b.set("--a", bytes("AAAA"));
  b.set("--b", bytes("new"));
  b.commit();
  EXPECT_EQ(read("a.bin"), "AAAA");
  EXPECT_EQ(read("old.bin"), "new");
  EXPECT_EQ(names(), (std::set<std::string>{"a.bin", "old.bin"}));
}

TEST_F(OutputBatchTest, ModeIs0666MaskedByTheUmask) {
  const mode_t old = ::umask(027);
  OutputBatch b;
  b.output("--a", path("a.bin"));
  b.set("--a", bytes("x"));
  b.commit();
  ::umask(old);
  struct stat st {};
  ASSERT_EQ(::stat(path("a.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(OutputBatchTest, RefusesAnOutputThatIsAnInputByPathOrByInode) {
  write("in.bin", "input");
  fs::create_hard_link(path("in.bin"), path("link.bin"));
  fs::create_symlink(path("in.bin"), path("sym.bin"));
  for (const std::string& out : {path("in.bin"), dir().string() + "/./in.bin", path("link.bin"), path("sym.bin"),
                                 dir().string() + "/../" + dir().filename().string() + "/in.bin"}) {
    OutputBatch b;
    b.input("--input", path("in.bin"));
    const std::string why = refusal([&] { b.output("--out", out); });
    EXPECT_NE(why.find("is also the input --input"), std::string::npos) << out << ": " << why;
  }
  EXPECT_EQ(read("in.bin"), "input");
}

TEST_F(OutputBatchTest, RefusesTwoOutputsNamingOneFileEvenWhenItDoesNotExistYet) {
  OutputBatch b;
  b.output("--out-elements", path("out.e"));
  fs::create_directory(path("sub"));
  const std::string why = refusal([&] { b.output("--out-scales", dir().string() + "/sub/.././out.e"); });
  // out.e does not exist, so the paths are compared normalised; both name out.e.
  EXPECT_NE(why.find("is also the output --out-elements"), std::string::npos) << why;
  EXPECT_EQ(names(), std::set<std::string>{"sub"});
}

TEST_F(OutputBatchTest, RefusesDirectoriesDevicesMissingFoldersAndEmptyNames) {
  fs::create_directory(path("d"));
  EXPECT_NE(refusal([&] { OutputBatch().output("--o", path("d")); }).find("is a directory"), std::string::npos);
  EXPECT_NE(refusal([&] { OutputBatch().output("--o", "/dev/null"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal([&] { OutputBatch().output("--o", path("none/x")); }).find("No such file"), std::string::npos);
  EXPECT_NE(refusal([&] { OutputBatch().output("--o", ""); }).find("a file is required"), std::string::npos);
}

TEST_F(OutputBatchTest, UncommittedOrFailedBatchLeavesNoFileAndKeepsOldContents) {
  write("keep.bin", "keep");
  write("keep.bin.tmp", "mine");  // a user's file with the name a naive writer would use
  {
    OutputBatch b;
    b.output("--a", path("keep.bin"));
    b.set("--a", bytes("replaced"));
  }  // destroyed without commit
  EXPECT_EQ(read("keep.bin"), "keep");
  EXPECT_EQ(read("keep.bin.tmp"), "mine");
  EXPECT_EQ(names(), (std::set<std::string>{"keep.bin", "keep.bin.tmp"}));
  // A write that fails half way (a file-size limit of 8 bytes, which binds root too: the second
  // output is larger): the first output, already staged, is removed; the old file is intact.
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 8;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  OutputBatch b;
  b.output("--a", path("keep.bin"));
  b.output("--b", path("big.bin"));
  b.set("--a", bytes("new"));
  b.set("--b", bytes("more than eight bytes"));
  const std::string why = commit_failure(b);
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(why.find("--b: '" + path("big.bin") + "' cannot be written: File too large"), std::string::npos) << why;
  EXPECT_EQ(read("keep.bin"), "keep");
  EXPECT_EQ(names(), (std::set<std::string>{"keep.bin", "keep.bin.tmp"}));
}

// All or nothing when a rename fails part way: the third output's name is longer than a file name
// may be (declaring it passes, as the name does not exist; its temporary goes without the name;
// the rename fails, for root too). The first output's previous file is back and the second
// output, which had no file before, is gone: the folder is as it was.
TEST_F(OutputBatchTest, ARenameFailingPartWayPutsBackTheOutputsRenamedBeforeIt) {
  write("a.bin", "old a");
  const std::string too_long(300, 'c');
  OutputBatch b;
  b.output("--a", path("a.bin"));
  b.output("--b", path("b.bin"));
  b.output("--c", path(too_long));
  b.set("--a", bytes("new a"));
  b.set("--b", bytes("new b"));
  b.set("--c", bytes("new c"));
  const std::string why = commit_failure(b);
  EXPECT_NE(why.find("--c: '" + path(too_long) + "' cannot be written: renaming into place"), std::string::npos) << why;
  EXPECT_NE(why.find("the outputs renamed before it were put back"), std::string::npos) << why;
  EXPECT_EQ(read("a.bin"), "old a");
  EXPECT_EQ(names(), (std::set<std::string>{"a.bin"}));
}

// A target that turns into a folder between the declaration and the commit cannot be kept aside:
// the call stops before renaming anything.
TEST_F(OutputBatchTest, ATargetThatCannotBeKeptAsideStopsTheCallBeforeAnyRename) {
  write("a.bin", "old a");
  OutputBatch b;
  b.output("--a", path("a.bin"));
  b.output("--c", path("c.bin"));
  b.set("--a", bytes("new a"));
  b.set("--c", bytes("new c"));
  fs::create_directory(path("c.bin"));
  const std::string why = commit_failure(b);
  EXPECT_NE(why.find("--c: '" + path("c.bin") + "' cannot be replaced safely"), std::string::npos) << why;
  EXPECT_EQ(read("a.bin"), "old a");
  EXPECT_EQ(names(), (std::set<std::string>{"a.bin", "c.bin"}));
}

// Through a symbolic link the link's target is written and the link stays a link, a dangling link
// included (its target is created); a link to a device is refused like the device.
TEST_F(OutputBatchTest, WritesThroughSymbolicLinksDanglingOnesIncluded) {
  write("target.bin", "old");
  fs::create_symlink("target.bin", path("live.lnk"));
  fs::create_symlink("missing.bin", path("dangling.lnk"));
  fs::create_symlink("/dev/null", path("device.lnk"));
  OutputBatch b;
  b.output("--a", path("live.lnk"));
  b.output("--b", path("dangling.lnk"));
  b.set("--a", bytes("via live"));
  b.set("--b", bytes("via dangling"));
  b.commit();
  EXPECT_TRUE(fs::is_symlink(path("live.lnk")));
  EXPECT_TRUE(fs::is_symlink(path("dangling.lnk")));
  EXPECT_EQ(read("target.bin"), "via live");
  EXPECT_EQ(read("missing.bin"), "via dangling");
  EXPECT_NE(refusal([&] { OutputBatch().output("--o", path("device.lnk")); }).find("not a regular file"),
            std::string::npos);
  // Two outputs that reach one file, one through a dangling link, are one file.
  fs::create_symlink("fresh.bin", path("fresh.lnk"));
  OutputBatch twice;
  twice.output("--a", path("fresh.lnk"));
  EXPECT_NE(refusal([&] { twice.output("--b", path("fresh.bin")); }).find("each output needs its own file"),
            std::string::npos);
}

// Interrupted between staging and renaming (SIGTERM in a child process): the staged temporary is
// removed by the handler and the child still dies of the signal. A forgotten temporary (renamed
// into place, as commit does) is left alone.
TEST_F(OutputBatchTest, AnInterruptedProgramLeavesNoTemporaryFile) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const std::string kept = create_temp_beside(path("kept.bin"));
    forget_temp(kept);
    std::rename(kept.c_str(), path("kept.bin").c_str());
    create_temp_beside(path("a.bin"));
    create_temp_beside(path("b.bin"));
    ::raise(SIGTERM);
    ::_exit(0);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(names(), std::set<std::string>{"kept.bin"});
}

TEST_F(OutputBatchTest, CommitWithoutBytesIsAProgrammingError) {
  OutputBatch b;
  b.output("--a", path("a.bin"));
  EXPECT_THROW(b.commit(), std::logic_error);
  EXPECT_TRUE(names().empty());
}

}  // namespace
}  // namespace mxv::io
