// The golden-file schema (golden_file.h, docs/golden-files.md) on top of the HDF5 layer: the root
// provenance attributes, one group per case under /cases with every parameter as an attribute,
// datasets under inputs/ and expected/ (candidates: outputs/), each with kind, layout and SHA-256.
// Reading checks every rule before anything is used and names the file, case and dataset.
#include "mxv/golden/golden_file.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <system_error>

#include "mxv/golden/golden_catalogue.h"
#include "mxv/golden/hdf5_file.h"
#include "mxv/io/data_files.h"
#include "mxv/reference/convert_command.h"

namespace mxv::golden {

namespace {

H5Storage storage_of(check::CodeKind k) {
  switch (k) {
    case check::CodeKind::kBf16:
    case check::CodeKind::kFp16: return H5Storage::kU16;
    case check::CodeKind::kFp32: return H5Storage::kF32;
    default: return H5Storage::kU8;
  }
}

std::string case_path(const std::string& name) { return "/cases/" + name; }

/// The attribute holding the SHA-256 of an object's other attributes (H5Writer::attrs_text).
constexpr const char* kAttrsDigest = "attrs_sha256";

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// Throws unless `object`'s attributes match their stored digest.
void verify_attrs(const H5Reader& r, const std::string& object, const std::string& where) {
  const std::string stored = r.attr_string(object, kAttrsDigest);
  const std::string actual = mxv::sha256_hex(as_bytes(r.attrs_text(object, kAttrsDigest)));
  if (stored != actual) {
    throw GoldenFileError(r.path(), where,
                          "attributes are damaged: their SHA-256 is " + actual.substr(0, 16) + "..., the file records " +
                              stored.substr(0, 16) + "...");
  }
}

/// Output datasets live under expected/ in golden files and outputs/ in candidates.
std::string output_group(const Provenance& p) { return p.content == "candidate" ? "outputs" : "expected"; }

/// Parses an enum from its to_string() spelling by trying every small underlying value.
template <class E>
E parse_enum(std::string_view text, std::string_view field) {
  for (int v = 0; v < 16; ++v) {
    if (to_string(static_cast<E>(v)) == text) return static_cast<E>(v);
  }
  throw std::invalid_argument("attribute '" + std::string(field) + "' has the unknown value '" + std::string(text) + "'");
}

// ---- writing ---------------------------------------------------------------------------------

void write_recipe(H5Writer& w, const std::string& at, const Recipe& r) {
  w.set_attr(at, "recipe.name", r.name);
  w.set_attr(at, "recipe.element", to_string(r.element));
  w.set_attr(at, "recipe.scale", to_string(r.scale));
  w.set_attr(at, "recipe.block_size", std::int64_t{r.block_size});
  w.set_attr(at, "recipe.scale_rule", to_string(r.scale_rule));
  w.set_attr(at, "recipe.global_scale", to_string(r.global_scale));
  w.set_attr(at, "recipe.order", to_string(r.order));
  w.set_attr(at, "recipe.reciprocal", to_string(r.reciprocal));
  w.set_attr(at, "recipe.zero_block", to_string(r.zero_block));
  w.set_attr(at, "recipe.nan_in_amax", to_string(r.nan_in_amax));
  w.set_attr(at, "recipe.tensor_amax_policy", to_string(r.tensor_amax));
  w.set_attr(at, "recipe.partial_block", to_string(r.partial_block));
  w.set_attr(at, "recipe.e8m0_decode", to_string(r.e8m0_decode));
  w.set_attr(at, "recipe.flush_e8m0_zero", std::int64_t{r.flush_e8m0_zero ? 1 : 0});
  w.set_attr(at, "recipe.dialect", to_string(r.dialect));
  w.set_attr(at, "recipe.intermediate", to_string(r.intermediate));
  w.set_attr(at, "recipe.activation", to_string(r.activation));
  w.set_attr(at, "recipe.alpha", static_cast<double>(r.alpha));
  w.set_attr(at, "recipe.limit", static_cast<double>(r.limit));
  w.set_attr(at, "recipe.exp", to_string(r.exp));
}

void write_dataset(H5Writer& w, const std::string& path, const DatasetSpec& spec, std::span<const std::uint8_t> bytes,
                   bool with_hash) {
  w.add_dataset(path, storage_of(spec.kind), spec.shape, bytes);
  w.set_attr(path, "kind", check::to_string(spec.kind));
  w.set_attr(path, "layout", check::to_string(spec.layout));
  if (with_hash) w.set_attr(path, "sha256", mxv::sha256_hex(bytes));
}

void write_case(H5Writer& w, const Provenance& prov, const GoldenCase& c) {
  if (c.name.empty() || c.name.find('/') != std::string::npos || c.name == "." || c.name == "..") {
    throw std::invalid_argument("golden case name '" + c.name + "' must be non-empty and contain no '/'");
  }
  const CaseParams& p = c.params;
  const std::string at = case_path(c.name);
  w.add_group(at);
  w.set_attr(at, "op", to_string(p.op));
  w.set_attr(at, "summary", p.summary());
  w.set_attr(at, "why", c.why);
  w.set_attr(at, "oracle", c.oracle);
  if (p.op == Op::kEncode || p.op == Op::kDecode) {
    w.set_attr(at, "format", p.format);
    w.set_attr(at, "rounding", to_string(p.mode.rounding));
    w.set_attr(at, "saturation", to_string(p.mode.saturation));
    w.set_attr(at, "dialect", to_string(p.mode.dialect));
  } else {
    write_recipe(w, at, p.recipe);
  }
  w.set_attr(at, "dtype", to_string(p.dtype));
  w.set_attr(at, "experts", p.experts);
  w.set_attr(at, "rows", p.rows);
  w.set_attr(at, "cols", p.cols);
  w.set_attr(at, "groups", std::span<const std::int64_t>(p.groups));
  w.set_attr(at, "scale_layout", to_string(p.scale_layout));
  w.set_attr(at, "packing", to_string(p.packing));
  w.set_attr(at, "gate_up_layout", to_string(p.gate_up));
  // Absent means "not given"; a float attribute holds the fp32 value exactly.
  if (p.tensor_amax) w.set_attr(at, "tensor_amax", static_cast<double>(*p.tensor_amax));
  // Last: the digest of every attribute above, so that a changed parameter is caught like a
  // changed dataset byte.
  w.set_attr(at, kAttrsDigest, mxv::sha256_hex(as_bytes(w.attrs_text(at))));

  const std::vector<DatasetSpec> ins = input_specs(p);
  const std::vector<DatasetSpec> outs = output_specs(p);
  if (c.inputs.size() != ins.size()) throw std::invalid_argument("golden case '" + c.name + "': wrong number of inputs");
  w.add_group(at + "/inputs");
  for (std::size_t i = 0; i < ins.size(); ++i) write_dataset(w, at + "/inputs/" + ins[i].name, ins[i], c.inputs[i].bytes, true);
  const bool candidate = prov.content == "candidate";
  if (!candidate && c.expected.size() != outs.size()) {
    throw std::invalid_argument("golden case '" + c.name + "': wrong number of expected outputs");
  }
  const std::string og = at + "/" + output_group(prov);
  w.add_group(og);
  for (std::size_t i = 0; i < outs.size(); ++i) {
    if (candidate) {
      const std::vector<std::uint8_t> fill(outs[i].bytes(), kCandidateFill);
      write_dataset(w, og + "/" + outs[i].name, outs[i], fill, false);
      // The expectation the candidate will be held to, so that `check --candidate` notices a
      // reference that moved since the template was written.
      if (i < c.expected.size()) w.set_attr(og + "/" + outs[i].name, "reference_sha256", mxv::sha256_hex(c.expected[i].bytes));
    } else {
      write_dataset(w, og + "/" + outs[i].name, outs[i], c.expected[i].bytes, true);
    }
  }
}

// ---- reading ---------------------------------------------------------------------------------

class CaseReader {
 public:
  CaseReader(const H5Reader& r, const Provenance& prov, std::string name)
      : r_(r), prov_(prov), name_(std::move(name)), at_(case_path(name_)) {}

  [[noreturn]] void fail(const std::string& problem) const { throw GoldenFileError(r_.path(), "case " + name_, problem); }

  std::string str(const std::string& attr) const { return r_.attr_string(at_, attr); }
  std::int64_t num(const std::string& attr) const { return r_.attr_int(at_, attr); }

  /// Runs `f`, turning a parse error into a message that names the case.
  template <class F>
  auto parse(F&& f) const {
    try {
      return f();
    } catch (const GoldenFileError&) {
      throw;
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }

  Recipe recipe() const {
    return parse([&] {
      Recipe r = Recipe::by_name(str("recipe.name"));
      r.element = parse_enum<ElementFormat>(str("recipe.element"), "recipe.element");
      r.scale = parse_enum<ScaleFormat>(str("recipe.scale"), "recipe.scale");
      r.block_size = static_cast<int>(num("recipe.block_size"));
      r.scale_rule = parse_enum<ScaleRule>(str("recipe.scale_rule"), "recipe.scale_rule");
      r.global_scale = parse_enum<GlobalScale>(str("recipe.global_scale"), "recipe.global_scale");
      r.order = parse_enum<Nvfp4Order>(str("recipe.order"), "recipe.order");
      r.reciprocal = parse_enum<Reciprocal>(str("recipe.reciprocal"), "recipe.reciprocal");
      r.zero_block = parse_enum<ZeroBlock>(str("recipe.zero_block"), "recipe.zero_block");
      r.nan_in_amax = parse_enum<NanInAmax>(str("recipe.nan_in_amax"), "recipe.nan_in_amax");
      r.tensor_amax = parse_enum<TensorAmaxPolicy>(str("recipe.tensor_amax_policy"), "recipe.tensor_amax_policy");
      r.partial_block = parse_enum<PartialBlock>(str("recipe.partial_block"), "recipe.partial_block");
      r.e8m0_decode = parse_enum<E8m0Decode>(str("recipe.e8m0_decode"), "recipe.e8m0_decode");
      r.flush_e8m0_zero = num("recipe.flush_e8m0_zero") != 0;
      r.dialect = parse_enum<Dialect>(str("recipe.dialect"), "recipe.dialect");
      r.intermediate = parse_enum<Intermediate>(str("recipe.intermediate"), "recipe.intermediate");
      r.activation = parse_enum<Activation>(str("recipe.activation"), "recipe.activation");
      r.alpha = static_cast<float>(r_.attr_double(at_, "recipe.alpha"));
      r.limit = static_cast<float>(r_.attr_double(at_, "recipe.limit"));
      r.exp = parse_enum<ExpKind>(str("recipe.exp"), "recipe.exp");
      return r;
    });
  }

  CaseParams params() const {
    return parse([&] {
      CaseParams p;
      p.op = op_by_name(str("op"));
      if (p.op == Op::kEncode || p.op == Op::kDecode) {
        p.format = str("format");
        p.mode.rounding = rounding_by_name(str("rounding"));
        p.mode.saturation = saturation_by_name(str("saturation"));
        p.mode.dialect = dialect_by_name(str("dialect"));
      } else {
        p.recipe = recipe();
      }
      p.dtype = wide_type_by_name(str("dtype"));
      p.experts = num("experts");
      p.rows = num("rows");
      p.cols = num("cols");
      p.groups = r_.attr_ints(at_, "groups");
      p.scale_layout = scale_layout_by_name(str("scale_layout"));
      p.packing = weight_packing_by_name(str("packing"));
      p.gate_up = GateUpLayout::parse(str("gate_up_layout"));
      if (r_.has_attr(at_, "tensor_amax")) p.tensor_amax = static_cast<float>(r_.attr_double(at_, "tensor_amax"));
      p.validate();
      return p;
    });
  }

  /// Reads the datasets of one group against their specs; `hashed`: verify the stored SHA-256.
  std::vector<Dataset> datasets(const std::string& group, const std::vector<DatasetSpec>& specs, bool hashed) const {
    const std::string g = at_ + "/" + group;
    if (!r_.is_group(g)) fail("group '" + group + "' is missing");
    std::vector<Dataset> out;
    for (const DatasetSpec& s : specs) {
      const std::string path = g + "/" + s.name;
      const std::string where = group + "/" + s.name;
      if (!r_.exists(path)) fail("dataset " + where + " is missing");
      const H5Reader::DatasetInfo info = r_.dataset_info(path);
      if (info.storage != storage_of(s.kind)) {
        fail("dataset " + where + " is " + std::string(to_string(info.storage)) + ", a " + std::string(check::to_string(s.kind)) +
             " dataset must be " + std::string(to_string(storage_of(s.kind))));
      }
      if (info.shape != s.shape) fail("dataset " + where + " has shape " + shape_text(info.shape) + ", the case needs " + shape_text(s.shape));
      // A candidate's outputs may have been recreated by another program without attributes
      // (h5py: `del f[p]; f[p] = array`); their dtype and shape were checked above.
      const bool kind_optional = !hashed;
      const std::string kind = kind_optional && !r_.has_attr(path, "kind") ? std::string(check::to_string(s.kind))
                                                                           : r_.attr_string(path, "kind");
      if (kind != check::to_string(s.kind)) {
        fail("dataset " + where + " has kind '" + kind + "', the case needs '" + std::string(check::to_string(s.kind)) + "'");
      }
      Dataset d{s, r_.read_dataset(path)};
      if (hashed) {
        const std::string stored = r_.attr_string(path, "sha256");
        const std::string actual = mxv::sha256_hex(d.bytes);
        if (stored != actual) {
          fail("dataset " + where + " is damaged: its SHA-256 is " + actual.substr(0, 16) + "..., the file records " +
               stored.substr(0, 16) + "...");
        }
      }
      out.push_back(std::move(d));
    }
    for (const std::string& child : r_.children(g)) {
      bool known = false;
      for (const DatasetSpec& s : specs) known = known || s.name == child;
      if (!known) fail("unexpected object " + group + "/" + child + " (a " + std::string(to_string(params_.op)) + " case has no such dataset)");
    }
    return out;
  }

  GoldenCase read() {
    GoldenCase c;
    c.name = name_;
    params_ = params();
    c.params = params_;
    c.why = str("why");
    c.oracle = str("oracle");
    verify_attrs(r_, at_, "case " + name_);
    const std::vector<DatasetSpec> ins = parse([&] { return input_specs(params_); });
    const std::vector<DatasetSpec> outs = parse([&] { return output_specs(params_); });
    c.inputs = datasets("inputs", ins, true);
    c.expected = datasets(output_group(prov_), outs, prov_.content != "candidate");
    if (prov_.content == "candidate") {
      for (const DatasetSpec& s : outs) {
        const std::string path = at_ + "/outputs/" + s.name;
        c.template_sha256.push_back(r_.has_attr(path, "reference_sha256") ? r_.attr_string(path, "reference_sha256") : "");
      }
    }
    return c;
  }

  static std::string shape_text(const std::vector<std::uint64_t>& s) {
    std::string t = "[";
    for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
    return t + "]";
  }

 private:
  const H5Reader& r_;
  const Provenance& prov_;
  std::string name_;
  std::string at_;
  CaseParams params_;
};

// Why the open HDF5 file is not of the mxv golden schema (any version), or "".
std::string schema_problem(const H5Reader& r) {
  if (!r.has_attr("/", "schema")) return "an HDF5 file, but not an mxv golden file (the root has no 'schema' attribute)";
  const std::string schema = r.attr_string("/", "schema");
  if (schema != kSchemaName) {
    return "an HDF5 file of schema '" + schema + "', not an mxv golden file ('" + std::string(kSchemaName) + "')";
  }
  return "";
}

Provenance read_provenance(const H5Reader& r) {
  const std::string& f = r.path();
  if (const std::string problem = schema_problem(r); !problem.empty()) throw GoldenFileError(f, "", problem);
  const std::int64_t version = r.attr_int("/", "schema_version");
  if (version != kSchemaVersion) {
    throw GoldenFileError(f, "", "schema version " + std::to_string(version) + ", this mxv reads version " +
                                     std::to_string(kSchemaVersion) + " (regenerate the file, or use the mxv that wrote it)");
  }
  Provenance p;
  p.content = r.attr_string("/", "content");
  if (p.content != "golden" && p.content != "candidate") {
    throw GoldenFileError(f, "", "root attribute 'content' is '" + p.content + "', expected 'golden' or 'candidate'");
  }
  p.family = r.attr_string("/", "family");
  p.mxv_version = r.attr_string("/", "mxv_version");
  p.git_revision = r.attr_string("/", "git_revision");
  p.generator = r.attr_string("/", "generator");
  p.command_line = r.attr_string("/", "command_line");
  p.reference_model = r.attr_string("/", "reference_model");
  p.created = r.attr_string("/", "created");
  p.seed = static_cast<std::uint64_t>(r.attr_int("/", "seed"));
  verify_attrs(r, "/", "file attributes");
  return p;
}

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), static_cast<int>(buf.size()), pipe) != nullptr) out += buf.data();
  if (pclose(pipe) != 0) return "";
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

}  // namespace

Provenance Provenance::current(std::string generator, std::string command_line, std::uint64_t seed) {
  Provenance p;
  p.mxv_version = MXV_VERSION;
  // The checkout is found through the committed set (a build tree's share/mxv/golden links into
  // it); an installed tree outside any checkout records "unknown".
  std::error_code ec;
  const std::filesystem::path golden = std::filesystem::canonical(io::find_data_file(kGoldenDataDir), ec);
  const std::string src = ec ? std::string() : golden.parent_path().string();
  std::string rev = src.empty() ? "" : run_command("git -C '" + src + "' rev-parse HEAD 2>/dev/null");
  if (rev.empty()) {
    rev = "unknown";
  } else if (!run_command("git -C '" + src + "' status --porcelain --untracked-files=no 2>/dev/null").empty()) {
    rev += "+dirty";
  }
  p.git_revision = rev;
  p.generator = std::move(generator);
  p.command_line = std::move(command_line);
  p.reference_model = reference_model_identity();
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::array<char, 32> buf{};
  std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  p.created = buf.data();
  p.seed = seed;
  return p;
}

void write_golden_file(const std::string& path, const Provenance& prov, const std::vector<GoldenCase>& cases) {
  if (prov.content != "golden" && prov.content != "candidate") {
    throw std::invalid_argument("write_golden_file: content must be 'golden' or 'candidate'");
  }
  H5Writer w(path);
  w.set_attr("/", "schema", kSchemaName);
  w.set_attr("/", "schema_version", kSchemaVersion);
  w.set_attr("/", "content", prov.content);
  w.set_attr("/", "family", prov.family);
  w.set_attr("/", "mxv_version", prov.mxv_version);
  w.set_attr("/", "git_revision", prov.git_revision);
  w.set_attr("/", "generator", prov.generator);
  w.set_attr("/", "command_line", prov.command_line);
  w.set_attr("/", "reference_model", prov.reference_model);
  w.set_attr("/", "created", prov.created);
  w.set_attr("/", "seed", static_cast<std::int64_t>(prov.seed));
  w.set_attr("/", kAttrsDigest, mxv::sha256_hex(as_bytes(w.attrs_text("/"))));
  w.add_group("/cases");
  for (const GoldenCase& c : cases) write_case(w, prov, c);
  w.commit();
}

std::string why_regen_may_not_replace(const std::string& path) {
  try {
    const H5Reader r(path);
    if (const std::string problem = schema_problem(r); !problem.empty()) return problem;
    if (r.has_attr("/", "content") && r.attr_string("/", "content") == "candidate") {
      return "a candidate file (its outputs come from a kernel under test), not a golden file";
    }
    return "";
  } catch (const GoldenFileError& e) {
    return e.where().empty() ? e.problem() : e.where() + ": " + e.problem();
  }
}

GoldenFile read_golden_file(const std::string& path) {
  const H5Reader r(path);
  GoldenFile f;
  f.path = path;
  f.provenance = read_provenance(r);
  if (!r.is_group("/cases")) throw GoldenFileError(path, "", "the group /cases is missing");
  for (const std::string& name : r.children("/cases")) {
    CaseReader cr(r, f.provenance, name);
    f.cases.push_back(cr.read());
  }
  return f;
}

}  // namespace mxv::golden
