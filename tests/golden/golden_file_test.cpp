// Tests of the golden-file schema (golden/include/mxv/golden/golden_file.h): a written file reads
// back equal, with every recipe field; and every kind of bad file -- truncated, one flipped byte,
// a missing dataset, a wrong schema version, a wrong dtype, a wrong shape, an HDF5 file that is not
// ours, a directory, not HDF5 at all -- is one message naming the file, the case and the problem,
// with exit code 2 from the verbs (describe, check, regen --check, diff), never a crash.
#include "mxv/golden/golden_file.h"

#include <H5Cpp.h>
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "mxv/golden/golden_inputs.h"
#include "mxv/golden/golden_tool.h"
#include "mxv/golden/hdf5_file.h"
#include "mxv/test_support/scratch_dir.h"

namespace mxv::golden {
namespace {

namespace fs = std::filesystem;

constexpr const char* kQuantizeCase = "quantize.nvfp4_torchao.3x17";
constexpr const char* kEncodeCase = "encode.e2m1";

std::vector<GoldenCase> sample_cases() {
  CaseParams q;
  q.op = Op::kQuantize;
  q.recipe = Recipe::nvfp4_torchao();
  q.rows = 3;
  q.cols = 17;
  q.scale_layout = ScaleLayout::kSwizzled128x4;
  const std::vector<float> x = quantize_inputs(q.recipe, 3, 17, 5, true);
  CaseParams e;
  e.op = Op::kEncode;
  e.format = "e2m1";
  const std::vector<float> probes = conversion_probes(kE2M1);
  e.cols = static_cast<std::int64_t>(probes.size());
  return {make_case(kQuantizeCase, q, {input_dataset(q, "x", narrow_from_fp32(WideType::kFp32, x))}, "odd K"),
          make_case(kEncodeCase, e, {input_dataset(e, "x", wide_probes(WideType::kFp32, probes))}, "probes")};
}

/// Replaces dataset `at` by zeros stored as `file_type` in a [rows, cols] dataspace.
template <class T>
void replace_with_zeros(H5::H5File& f, const std::string& at, const H5::PredType& file_type,
                        const H5::PredType& memory_type, std::array<hsize_t, 2> dims) {
  f.unlink(at);
  const std::vector<T> zeros(dims[0] * dims[1], T{0});
  H5::DataSet d = f.createDataSet(at, file_type, H5::DataSpace(2, dims.data()));
  d.write(zeros.data(), memory_type);
}

/// Rewrites the quantize case's text attribute `name` as `value`: a valid HDF5 edit (h5py's
/// attrs[name] = value), so HDF5's own checksums stay right.
void rewrite_case_text(H5::H5File& f, const std::string& name, const std::string& value) {
  H5::Group g = f.openGroup(std::string("/cases/") + kQuantizeCase);
  g.removeAttr(name);
  H5::StrType t(H5::PredType::C_S1, value.size());
  g.createAttribute(name, t, H5::DataSpace(H5S_SCALAR)).write(t, value);
}

class GoldenFileTest : public test_support::ScratchDirTest {
 protected:
  void SetUp() override {
    good_ = path("quantize.h5");
    Provenance p = Provenance::current("golden_file_test", "golden_file_test", 5);
    p.family = "quantize";
    write_golden_file(good_, p, sample_cases());
  }

  /// A copy of the good file, changed by `edit` through the HDF5 C++ API.
  template <class F>
  std::string edited(const std::string& name, F&& edit) {
    const std::string p = path(name);
    fs::copy_file(good_, p, fs::copy_options::overwrite_existing);
    H5::H5File f(p, H5F_ACC_RDWR);
    edit(f);
    f.close();
    return p;
  }

  /// Runs describe and check on `file`: both exit 2 with one error line naming the file and
  /// containing every piece of `expect`.
  void expect_bad(const std::string& file, std::initializer_list<std::string> expect) {
    for (int verb = 0; verb < 3; ++verb) {
      std::ostringstream out, err;
      int code = 0;
      if (verb == 0) code = run_describe(file, out, err);
      if (verb == 1) {
        CheckOptions o;
        o.backend = "emulated";
        o.files = {file};
        code = run_check(o, out, err);
      }
      if (verb == 2) code = run_diff(good_, file, out, err);
      SCOPED_TRACE("verb " + std::to_string(verb) + ": " + err.str());
      EXPECT_EQ(code, 2);
      const std::string e = err.str();
      EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 1) << "one line";
      EXPECT_NE(e.find(file), std::string::npos) << "names the file";
      for (const std::string& piece : expect) EXPECT_NE(e.find(piece), std::string::npos) << "mentions '" << piece << "'";
    }
  }

  std::string good_;
};

TEST_F(GoldenFileTest, WrittenCasesReadBackEqual) {
  const std::vector<GoldenCase> cases = sample_cases();
  const GoldenFile f = read_golden_file(good_);
  EXPECT_EQ(f.provenance.content, "golden");
  EXPECT_EQ(f.provenance.family, "quantize");
  EXPECT_EQ(f.provenance.seed, 5u);
  EXPECT_EQ(f.provenance.reference_model, reference_model_identity());
  ASSERT_EQ(f.cases.size(), 2u);
  // Read in name order: encode.e2m1 < quantize...
  const GoldenCase& e = f.cases[0];
  const GoldenCase& q = f.cases[1];
  EXPECT_EQ(e.name, kEncodeCase);
  EXPECT_EQ(q.name, kQuantizeCase);
  EXPECT_EQ(q.params.recipe, Recipe::nvfp4_torchao());  // every field, not only the name
  EXPECT_EQ(q.params.scale_layout, ScaleLayout::kSwizzled128x4);
  EXPECT_EQ(q.why, "odd K");
  EXPECT_EQ(e.params.format, "e2m1");
  for (const auto& [got, want] : {std::pair{&e, &cases[1]}, std::pair{&q, &cases[0]}}) {
    ASSERT_EQ(got->inputs.size(), want->inputs.size());
    ASSERT_EQ(got->expected.size(), want->expected.size());
    for (std::size_t i = 0; i < got->inputs.size(); ++i) EXPECT_EQ(got->inputs[i].bytes, want->inputs[i].bytes);
    for (std::size_t i = 0; i < got->expected.size(); ++i) EXPECT_EQ(got->expected[i].bytes, want->expected[i].bytes);
  }
  std::ostringstream out, err;
  EXPECT_EQ(run_describe(good_, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("order=torchao"), std::string::npos) << out.str();
}

TEST_F(GoldenFileTest, TruncatedFile) {
  const std::string p = path("cut.h5");
  fs::copy_file(good_, p);
  fs::resize_file(p, fs::file_size(p) * 2 / 3);
  expect_bad(p, {"truncated or damaged"});
}

TEST_F(GoldenFileTest, OneFlippedByteIsCaughtByTheDatasetHash) {
  std::uint64_t offset = 0;
  {
    const H5Reader r(good_);
    offset = r.dataset_file_offset(std::string("/cases/") + kQuantizeCase + "/expected/scales") + 1;
  }
  const std::string p = path("flipped.h5");
  fs::copy_file(good_, p);
  std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(static_cast<std::streamoff>(offset));
  char b = 0;
  f.read(&b, 1);
  b = static_cast<char>(b ^ 0x10);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&b, 1);
  f.close();
  expect_bad(p, {kQuantizeCase, "expected/scales", "damaged", "SHA-256"});
}

TEST_F(GoldenFileTest, OneFlippedByteInACaseAttribute) {
  // The case's `why` text ("odd K") sits in its object header, which HDF5 checksums.
  const std::string p = path("why.h5");
  fs::copy_file(good_, p);
  std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::size_t at = bytes.find("odd K");
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes.find("odd K", at + 1), std::string::npos);
  f.seekp(static_cast<std::streamoff>(at + 4));
  f.put('J');
  f.close();
  expect_bad(p, {kQuantizeCase, "damaged"});
}

TEST_F(GoldenFileTest, AnEditedCaseAttributeIsCaughtByTheAttributeDigest) {
  // A valid edit (h5py: attrs['why'] = ...) keeps HDF5's checksums right; the case's digest over
  // its attributes does not match any more.
  const std::string p = edited("edited.h5", [](H5::H5File& f) { rewrite_case_text(f, "why", "odd J"); });
  expect_bad(p, {kQuantizeCase, "attributes are damaged"});
}

TEST_F(GoldenFileTest, AChangedFileAttributeIsCaught) {
  const std::string p = edited("prov.h5", [](H5::H5File& f) {
    H5::Group g = f.openGroup("/");
    g.removeAttr("seed");
    const std::int64_t seed = 6;
    g.createAttribute("seed", H5::PredType::STD_I64LE, H5::DataSpace(H5S_SCALAR)).write(H5::PredType::NATIVE_INT64, &seed);
  });
  expect_bad(p, {"file attributes", "attributes are damaged"});
}

TEST_F(GoldenFileTest, MissingDataset) {
  const std::string p = edited("missing.h5", [](H5::H5File& f) {
    f.unlink(std::string("/cases/") + kQuantizeCase + "/inputs/x");
  });
  expect_bad(p, {kQuantizeCase, "inputs/x", "missing"});
}

TEST_F(GoldenFileTest, WrongSchemaVersion) {
  const std::string p = edited("v2.h5", [](H5::H5File& f) {
    const std::int64_t v = 2;
    f.openGroup("/").openAttribute("schema_version").write(H5::PredType::NATIVE_INT64, &v);
  });
  expect_bad(p, {"schema version 2", "reads version 1"});
}

TEST_F(GoldenFileTest, WrongDtype) {
  // The expected elements rewritten as float64 of the same shape.
  const std::string p = edited("dtype.h5", [](H5::H5File& f) {
    replace_with_zeros<double>(f, std::string("/cases/") + kQuantizeCase + "/expected/elements", H5::PredType::IEEE_F64LE,
                               H5::PredType::NATIVE_DOUBLE, {3, 9});
  });
  expect_bad(p, {kQuantizeCase, "expected/elements", "float of 8 bytes"});
}

TEST_F(GoldenFileTest, WrongShape) {
  const std::string p = edited("shape.h5", [](H5::H5File& f) {
    replace_with_zeros<float>(f, std::string("/cases/") + kQuantizeCase + "/inputs/x", H5::PredType::IEEE_F32LE,
                              H5::PredType::NATIVE_FLOAT, {17, 3});
  });
  expect_bad(p, {kQuantizeCase, "inputs/x", "shape [17, 3]", "needs [3, 17]"});
}

TEST_F(GoldenFileTest, AnHdf5FileThatIsNotOurs) {
  const std::string p = path("other.h5");
  {
    H5Writer w(p);
    const std::vector<std::uint64_t> shape = {2};
    w.add_dataset("/data", H5Storage::kF32, shape, std::vector<std::uint8_t>(8, 0));
    w.commit();
  }
  expect_bad(p, {"not an mxv golden file"});
}

TEST_F(GoldenFileTest, ADirectoryAndNonHdf5) {
  fs::create_directories(path("dir.h5"));
  expect_bad(path("dir.h5"), {"is a directory"});
  test_support::write_bytes(path("text.h5"), "x");
  expect_bad(path("text.h5"), {"not an HDF5 file"});
  expect_bad(path("absent.h5"), {"no such file"});
}

TEST_F(GoldenFileTest, AnUnknownRecipeFieldValueNamesTheAttribute) {
  const std::string p = edited("recipe.h5", [](H5::H5File& f) { rewrite_case_text(f, "recipe.order", "bogus"); });
  expect_bad(p, {kQuantizeCase, "recipe.order", "bogus"});
}

TEST_F(GoldenFileTest, RegenCheckListsForeignCasesAndRejectsADirectory) {
  // A family file holding cases the catalogue does not have: regen --check lists them, exit 1.
  const std::string p = path("flip/quantize.h5");
  fs::create_directories(path("flip"));
  {
    Provenance prov = Provenance::current("t", "t", 1);
    write_golden_file(p, prov, sample_cases());
  }
  RegenOptions o;
  o.check = true;
  o.files = {p};
  std::ostringstream out, err;
  EXPECT_EQ(run_regen(o, out, err), 1) << out.str() << err.str();
  EXPECT_NE(out.str().find("removed " + std::string(kQuantizeCase)), std::string::npos) << out.str();
  o.files = {path("dir.h5")};
  fs::create_directories(path("dir.h5"));
  std::ostringstream out2, err2;
  EXPECT_EQ(run_regen(o, out2, err2), 2);
  EXPECT_NE(err2.str().find("is a directory"), std::string::npos) << err2.str();
}

TEST_F(GoldenFileTest, AFuzzerSavesOneCaseAndCheckReplaysIt) {
  // The API of golden_case.h's header comment, as `mxv fuzz --save-failure` uses it.
  CaseParams p;
  p.op = Op::kQuantize;
  p.recipe = Recipe::nvfp4_te();
  p.rows = 3;
  p.cols = 32;
  const std::vector<float> x = quantize_inputs(p.recipe, 3, 32, 42, false);
  const GoldenCase c = make_case("fuzz.quantize.seed-42", p, {input_dataset(p, "x", narrow_from_fp32(WideType::kFp32, x))},
                                 "what the fuzzer found");
  const std::string failure = path("failure.h5");
  write_golden_file(failure, Provenance::current("mxv fuzz", "mxv fuzz --seed 42", 42), {c});
  CheckOptions o;
  o.backend = "emulated";
  o.files = {failure};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(o, out, err), 0) << out.str() << err.str();
  EXPECT_NE(out.str().find("1 passed, 0 failed"), std::string::npos) << out.str();
  EXPECT_EQ(read_golden_file(failure).provenance.generator, "mxv fuzz");
}

}  // namespace
}  // namespace mxv::golden
