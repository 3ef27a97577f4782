// Tests of the HDF5 layer (golden/include/mxv/golden/hdf5_file.h): every storage type and attribute
// kind round-trips byte for byte; files are deterministic; an abandoned writer leaves the target
// untouched; every kind of bad file is one GoldenFileError naming the file and the problem.
#include "mxv/golden/hdf5_file.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "mxv/test_support/scratch_dir.h"

namespace mxv::golden {
namespace {

namespace fs = std::filesystem;

class Hdf5FileTest : public test_support::ScratchDirTest {
 protected:
  /// A file with one dataset of every storage type and one attribute of every kind.
  void write_sample(const std::string& p) {
    H5Writer w(p);
    w.set_attr("/", "name", std::string_view("sample"));
    w.set_attr("/", "count", std::int64_t{-7});
    w.set_attr("/", "ratio", 0.1);
    const std::vector<std::int64_t> list = {1, 127, 128, 129};
    w.set_attr("/", "list", std::span<const std::int64_t>(list));
    w.set_attr("/", "empty_list", std::span<const std::int64_t>());
    w.set_attr("/", "empty_text", std::string_view(""));
    w.add_group("/g");
    const std::vector<std::uint64_t> s23 = {2, 3};
    w.add_dataset("/g/u8", H5Storage::kU8, s23, u8_);
    const std::vector<std::uint64_t> s2 = {2};
    w.add_dataset("/g/u16", H5Storage::kU16, s2, u16_);
    const std::vector<std::uint64_t> s1 = {1};
    w.add_dataset("/g/f32", H5Storage::kF32, s1, f32_);
    w.add_dataset("/g/i64", H5Storage::kI64, s1, i64_);
    const std::vector<std::uint64_t> s0 = {0};
    w.add_dataset("/g/empty", H5Storage::kU8, s0, {});
    w.set_attr("/g/u8", "kind", std::string_view("e2m1x2"));
    // The writer's text of what it set equals the reader's text of what was stored.
    writer_text_ = w.attrs_text("/");
    w.commit();
  }

  std::string writer_text_;
  const std::vector<std::uint8_t> u8_ = {0, 1, 2, 0x7F, 0x80, 0xFF};
  const std::vector<std::uint8_t> u16_ = {0x80, 0x3F, 0xFF, 0x7F};          // bf16 1.0, NaN
  const std::vector<std::uint8_t> f32_ = {0x01, 0x00, 0x00, 0x80};          // -2^-149
  const std::vector<std::uint8_t> i64_ = {0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};  // -2
};

TEST_F(Hdf5FileTest, EveryStorageAndAttributeRoundTrips) {
  const std::string p = path("a.h5");
  write_sample(p);
  const H5Reader r(p);
  EXPECT_EQ(r.attr_string("/", "name"), "sample");
  EXPECT_EQ(r.attr_int("/", "count"), -7);
  EXPECT_EQ(r.attr_double("/", "ratio"), 0.1);
  EXPECT_EQ(r.attr_ints("/", "list"), (std::vector<std::int64_t>{1, 127, 128, 129}));
  EXPECT_TRUE(r.attr_ints("/", "empty_list").empty());
  EXPECT_EQ(r.attrs_text("/", ""), writer_text_);
  EXPECT_EQ(r.attr_string("/", "empty_text"), "");
  EXPECT_EQ(r.attr_string("/g/u8", "kind"), "e2m1x2");
  // The canonical text digests are computed from (hdf5_file.h attr_text).
  EXPECT_EQ(r.attrs_text("/", "name"),
            "count=i:-7\nempty_list=l:\nempty_text=s:\nlist=l:1,127,128,129\nratio=f:0x1.999999999999ap-4\n");
  EXPECT_EQ(r.children("/g"), (std::vector<std::string>{"empty", "f32", "i64", "u16", "u8"}));
  EXPECT_EQ(r.read_dataset("/g/u8"), u8_);
  EXPECT_EQ(r.read_dataset("/g/u16"), u16_);
  EXPECT_EQ(r.read_dataset("/g/f32"), f32_);
  EXPECT_EQ(r.read_dataset("/g/i64"), i64_);
  EXPECT_TRUE(r.read_dataset("/g/empty").empty());
  const H5Reader::DatasetInfo info = r.dataset_info("/g/u8");
  EXPECT_EQ(info.storage, H5Storage::kU8);
  EXPECT_EQ(info.shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(r.dataset_info("/g/u16").storage, H5Storage::kU16);
  EXPECT_EQ(r.dataset_info("/g/f32").storage, H5Storage::kF32);
  EXPECT_EQ(r.dataset_info("/g/i64").storage, H5Storage::kI64);
  EXPECT_TRUE(r.exists("/g/u8"));
  EXPECT_FALSE(r.exists("/g/none"));
  EXPECT_FALSE(r.exists("/none/deeper"));
  EXPECT_TRUE(r.is_group("/g"));
  EXPECT_FALSE(r.is_group("/g/u8"));
  // The dataset's bytes sit at its file offset (contiguous, uncompressed).
  const std::vector<std::uint8_t> bytes = test_support::read_bytes(p);
  const std::uint64_t off = r.dataset_file_offset("/g/u8");
  ASSERT_LE(off + u8_.size(), bytes.size());
  for (std::size_t i = 0; i < u8_.size(); ++i) EXPECT_EQ(bytes[off + i], u8_[i]);
}

TEST_F(Hdf5FileTest, SameCallsGiveTheSameBytes) {
  write_sample(path("a.h5"));
  write_sample(path("b.h5"));
  EXPECT_EQ(test_support::read_bytes(path("a.h5")), test_support::read_bytes(path("b.h5")));
}

TEST_F(Hdf5FileTest, AnAbandonedWriterLeavesTheTargetUntouched) {
  const std::string p = path("a.h5");
  write_sample(p);
  const std::vector<std::uint8_t> before = test_support::read_bytes(p);
  test_support::write_bytes(p + ".tmp", "a user's file");  // the name a naive writer would stage in
  {
    H5Writer w(p);
    w.add_group("/other");
    // No commit: as when an exception leaves the scope.
  }
  EXPECT_EQ(test_support::read_bytes(p), before);
  EXPECT_EQ(test_support::read_text(p + ".tmp"), "a user's file");
  // No temporary file is left beside them.
  EXPECT_EQ(names(), (std::set<std::string>{"a.h5", "a.h5.tmp"}));
}

TEST_F(Hdf5FileTest, ASizeThatDoesNotFillTheShapeIsRejected) {
  H5Writer w(path("a.h5"));
  const std::vector<std::uint64_t> shape = {4};
  const std::vector<std::uint8_t> three = {1, 2, 3};
  EXPECT_THROW(w.add_dataset("/x", H5Storage::kU8, shape, three), std::invalid_argument);
  EXPECT_THROW(w.add_dataset("/y", H5Storage::kF32, shape, std::vector<std::uint8_t>(4)), std::invalid_argument);
}

/// Expects a GoldenFileError whose message names `file` and contains `problem`.
template <class F>
void expect_file_error(F&& f, const std::string& file, const std::string& problem) {
  try {
    f();
    ADD_FAILURE() << "no error for " << file << " (expected '" << problem << "')";
  } catch (const GoldenFileError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
}

TEST_F(Hdf5FileTest, BadFilesAreOneClearError) {
  expect_file_error([&] { H5Reader r(path("missing.h5")); }, path("missing.h5"), "no such file");
  fs::create_directories(path("dir.h5"));
  expect_file_error([&] { H5Reader r(path("dir.h5")); }, path("dir.h5"), "is a directory");
  test_support::write_bytes(path("text.h5"), "not hdf5 at all\n");
  expect_file_error([&] { H5Reader r(path("text.h5")); }, path("text.h5"), "not an HDF5 file");
  // Truncated: the superblock survives, the rest does not.
  write_sample(path("cut.h5"));
  fs::resize_file(path("cut.h5"), fs::file_size(path("cut.h5")) / 2);
  expect_file_error([&] { H5Reader r(path("cut.h5")); }, path("cut.h5"), "truncated or damaged");
}

TEST_F(Hdf5FileTest, MissingAndMistypedObjectsNameTheirPath) {
  const std::string p = path("a.h5");
  write_sample(p);
  const H5Reader r(p);
  expect_file_error([&] { (void)r.attr_string("/", "absent"); }, p, "attribute 'absent' is missing");
  expect_file_error([&] { (void)r.attr_string("/", "count"); }, p, "is not a string");
  expect_file_error([&] { (void)r.attr_int("/", "name"); }, p, "is not one integer");
  expect_file_error([&] { (void)r.attr_double("/", "count"); }, p, "is not one float");
  expect_file_error([&] { (void)r.read_dataset("/g/absent"); }, p, "dataset is missing");
  expect_file_error([&] { (void)r.read_dataset("/g"); }, p, "is not a dataset");
  expect_file_error([&] { (void)r.children("/g/u8"); }, p, "not a group");
  try {
    (void)r.read_dataset("/g/absent");
  } catch (const GoldenFileError& e) {
    EXPECT_EQ(e.where(), "/g/absent");
  }
}

}  // namespace
}  // namespace mxv::golden
