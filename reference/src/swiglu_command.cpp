// `mxv swiglu-quantize` (issue 3, "CLI"; SEMANTICS.md sections 5-6): validates the request,
// reads the raw GEMM output, runs the fused (or unfused) SwiGLU + NVFP4 model of
// swiglu_quantize.h and writes the outputs all-or-nothing. Option parsing is in swiglu_cli.h.
#include "mxv/reference/swiglu_command.h"

#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "mxv/reference/quantize.h"
#include "mxv/reference/swiglu_quantize.h"

namespace mxv {
namespace {

[[noreturn]] void bad(const std::string& option, const std::string& rule) {
  throw std::invalid_argument(option + ": " + rule);
}

// 'text' in quotes. (Built by appending: g++ 12 -O3 warns falsely, -Wrestrict, on
// "literal" + std::string(...) temporaries; GCC bug 105329.)
std::string quoted(std::string_view text) {
  std::string s = "'";
  s.append(text);
  s += '\'';
  return s;
}

std::int64_t parse_count(const std::string& option, std::string_view text, std::int64_t min) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    bad(option, quoted(text) + " is not an integer");
  }
  if (v < min) bad(option, "must be >= " + std::to_string(min) + ", got " + std::string(text));
  return v;
}

float parse_float(const std::string& option, std::string_view text) {
  float v = 0.0f;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    bad(option, quoted(text) + " is not a number");
  }
  return v;
}

std::vector<std::int64_t> parse_counts(const std::string& text) {
  std::vector<std::int64_t> counts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item =
        std::string_view(text).substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    counts.push_back(parse_count("--rows-per-expert", item, 0));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return counts;
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad("--input", "cannot open '" + path + "'");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes;
}

std::vector<std::uint8_t> fp32_bytes(std::span<const float> values) {
  std::vector<std::uint8_t> out(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint32_t b = std::bit_cast<std::uint32_t>(values[i]);
    for (std::size_t k = 0; k < 4; ++k) out[4 * i + k] = static_cast<std::uint8_t>(b >> (8 * k));
  }
  return out;
}

// Writes every (path, bytes) pair to path.tmp, then renames them all; on any failure removes
// whatever it wrote, so that no partial output is left behind.
void write_all_or_nothing(const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files) {
  std::vector<std::string> written;
  auto cleanup = [&] {
    std::error_code ignored;
    for (const auto& p : written) std::filesystem::remove(p, ignored);
  };
  for (const auto& [path, bytes] : files) {
    const std::string tmp = path + ".tmp";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) written.push_back(tmp);
    if (out) out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (out) out.close();
    if (!out) {
      cleanup();
      throw std::runtime_error("cannot write '" + tmp + "'");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::error_code ec;
    std::filesystem::rename(files[i].first + ".tmp", files[i].first, ec);
    if (ec) {
      for (std::size_t j = 0; j < i; ++j) std::filesystem::remove(files[j].first, ec);
      cleanup();
      throw std::runtime_error("cannot rename '" + files[i].first + ".tmp': " + ec.message());
    }
  }
}

}  // namespace

std::string_view swiglu_quantize_file_layouts() {
  return "Files (raw little-endian, row-major; numpy: np.fromfile(path, dtype).reshape(shape)):\n"
         "  --input         [rows, 2I] fp32 or bf16 (--dtype): one GEMM output row per token;\n"
         "                  gate/up columns per --layout (halves: gate [0,I), up [I,2I);\n"
         "                  interleaved:G: groups of G columns alternate gate, up, gate first).\n"
         "  --out-codes     uint8 [rows, ceil(I/2)]: E2M1 codes of the activated output, element\n"
         "                  2i in bits [3:0], 2i+1 in [7:4]; rows compact (expert after expert).\n"
         "  --out-scales    uint8 UE4M3 block scales, one per 16 outputs (kb = ceil(I/16) per\n"
         "                  row). swizzled: each expert's rows start at a 128-padded row offset,\n"
         "                  [padded_rows/128, ceil(kb/4), 32, 4, 4] tiles (offset of row r, block\n"
         "                  k: (r/128)*n_k*512 + (k/4)*512 + (r%32)*16 + ((r%128)/32)*4 + k%4),\n"
         "                  padding bytes 0. linear: [rows, kb].\n"
         "  --out-global    float32 [n, 3]: (amax, s_enc, s_dec) per global scale, n = number\n"
         "                  of experts with --scale-per-expert, else 1. Dequantize:\n"
         "                  e2m1 * ue4m3 * s_dec.\n"
         "  --out-activated float32 [rows, I]: the values that were quantized (after the bf16\n"
         "                  rounding with --intermediate bf16 or --unfused).\n"
         "Exit code 2 on bad options or input; then no output file is written.\n";
}

void run_swiglu_quantize(const SwigluQuantizeRequest& req, std::ostream& out) {
  // 1. Options, each validated with the option's name in the message.
  if (req.input.empty()) bad("--input", "is required");
  if (req.out_codes.empty()) bad("--out-codes", "is required");
  if (req.out_scales.empty()) bad("--out-scales", "is required");
  if (req.out_global.empty()) bad("--out-global", "is required");
  {
    std::vector<std::string> paths = {req.out_codes, req.out_scales, req.out_global};
    if (req.out_activated) paths.push_back(*req.out_activated);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (paths[i] == req.input) bad("output files", "'" + paths[i] + "' is also the input");
      for (std::size_t j = i + 1; j < paths.size(); ++j) {
        if (paths[i] == paths[j]) bad("output files", "'" + paths[i] + "' is named twice");
      }
    }
  }
  if (req.intermediate_size.empty()) bad("--intermediate-size", "is required");
  const std::int64_t isize = parse_count("--intermediate-size", req.intermediate_size, 1);
  WideType dtype = WideType::kFp32;
  if (req.dtype == "bf16") {
    dtype = WideType::kBf16;
  } else if (req.dtype != "fp32") {
    bad("--dtype", "'" + req.dtype + "' is not fp32 or bf16");
  }
  Recipe recipe = Recipe::by_name(req.recipe);
  if (!recipe.is_nvfp4()) bad("--recipe", "'" + req.recipe + "' is not an NVFP4 preset");
  recipe.activation = SwigluActivation::parse_kind(req.activation);
  if (recipe.activation != Activation::kSwigluClamped && (req.alpha || req.limit)) {
    bad("--alpha/--limit", "apply to --activation swiglu-clamped only");
  }
  if (req.alpha) recipe.alpha = parse_float("--alpha", *req.alpha);
  if (req.limit) recipe.limit = parse_float("--limit", *req.limit);
  if (req.intermediate == "bf16") {
    recipe.intermediate = Intermediate::kBf16;
  } else if (req.intermediate == "fp32") {
    recipe.intermediate = Intermediate::kFp32;
  } else {
    bad("--intermediate", "'" + req.intermediate + "' is not fp32 or bf16");
  }
  SwigluQuantizeOptions opt;
  opt.layout = GateUpLayout::parse(req.layout);
  opt.layout.validate(static_cast<std::size_t>(isize));
  opt.scale_layout = scale_layout_by_name(req.scale_layout);
  opt.scale_per_expert = req.scale_per_expert;
  if (req.rows_per_expert) opt.rows_per_expert = parse_counts(*req.rows_per_expert);
  if (req.scale_per_expert && opt.rows_per_expert.empty()) {
    bad("--scale-per-expert", "needs --rows-per-expert");
  }
  if (req.tensor_amax) opt.tensor_amax = parse_float("--tensor-amax", *req.tensor_amax);

  // 2. Input: its size fixes the rows (and must agree with --rows and --rows-per-expert).
  const std::vector<std::uint8_t> bytes = read_file(req.input);
  const auto row_bytes = static_cast<std::uint64_t>(2 * isize) * bytes_of(dtype);
  if (bytes.size() % row_bytes != 0) {
    bad("--input", "'" + req.input + "' has " + std::to_string(bytes.size()) +
                       " bytes, not a multiple of one row (2I = " + std::to_string(2 * isize) +
                       " " + req.dtype + " values = " + std::to_string(row_bytes) + " bytes)");
  }
  const auto rows = static_cast<std::int64_t>(bytes.size() / row_bytes);
  if (req.rows && parse_count("--rows", *req.rows, 0) != rows) {
    bad("--rows", *req.rows + " does not match the input file, which holds " + std::to_string(rows) + " rows");
  }
  std::int64_t expert_rows = 0;
  for (std::int64_t c : opt.rows_per_expert) expert_rows += c;
  if (!opt.rows_per_expert.empty() && expert_rows != rows) {
    bad("--rows-per-expert", "counts sum to " + std::to_string(expert_rows) + " but the input has " +
                                 std::to_string(rows) + " rows");
  }

  // 3. The model.
  const std::vector<float> wide = widen_to_fp32(dtype, bytes);
  const GateUpView view =
      GateUpView::from_fp32(wide, static_cast<std::size_t>(rows), static_cast<std::size_t>(isize));
  const SwigluQuantized result = req.unfused ? swiglu_quantize_unfused(recipe, view, opt)
                                             : swiglu_quantize_fused(recipe, view, opt);

  // 4. Outputs, all or nothing.
  std::vector<float> global;
  for (const TensorScale& t : result.quantized.tensor) {
    global.insert(global.end(), {t.amax, t.s_enc, t.s_dec});
  }
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files = {
      {req.out_codes, result.quantized.elements},
      {req.out_scales, result.quantized.scales},
      {req.out_global, fp32_bytes(global)},
  };
  if (req.out_activated) files.emplace_back(*req.out_activated, fp32_bytes(result.activated));
  write_all_or_nothing(files);
  out << "swiglu-quantize: " << rows << " rows x I=" << isize << ", " << to_string(opt.layout) << ", "
      << (req.unfused ? "unfused" : "fused") << ", recipe " << recipe.name << "; "
      << result.quantized.elements.size() << " code bytes, " << result.quantized.scales.size()
      << " scale bytes, " << result.quantized.tensor.size() << " global scale(s)\n";
}

}  // namespace mxv
