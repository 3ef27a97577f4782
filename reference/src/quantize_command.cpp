// `mxv quantize` (issue 3, "CLI"): raw activations -> the block model of quantize.h -> raw
// outputs, all-or-nothing. Also the option parsing and file helpers both verbs share.
#include "mxv/reference/quantize_command.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "mxv/reference/quantize.h"
#include "mxv/reference/rcp_approx.h"
#include "mxv/reference/recipe.h"

namespace mxv {

std::int64_t parse_int_option(std::string_view option, std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw std::invalid_argument(std::string(option) + ": '" + std::string(text) + "' is not an integer");
  }
  if (v < min || v > max) {
    throw std::invalid_argument(std::string(option) + ": " + std::to_string(v) + " is outside [" +
                                std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return v;
}

std::vector<std::int64_t> parse_counts_option(std::string_view option, std::string_view text) {
  std::vector<std::int64_t> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view part = text.substr(start, comma == std::string_view::npos ? text.size() - start : comma - start);
    out.push_back(parse_int_option(option, part, 0, std::int64_t{1} << 40));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::uint8_t> read_raw_file(std::string_view option, const std::string& path) {
  if (path.empty()) throw std::invalid_argument(std::string(option) + ": a file is required");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(std::string(option) + ": cannot open '" + path + "'");
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_raw_files(const std::vector<std::pair<std::string, std::vector<std::uint8_t>>>& files) {
  std::vector<std::string> temps;
  auto cleanup = [&temps] {
    for (const auto& t : temps) std::remove(t.c_str());
  };
  for (const auto& [path, bytes] : files) {
    const std::string tmp = path + ".tmp";
    temps.push_back(tmp);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      cleanup();
      throw std::runtime_error("cannot write '" + tmp + "'");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      cleanup();
      throw std::runtime_error("cannot rename '" + temps[i] + "' to '" + files[i].first + "'");
    }
  }
}

std::string_view quantize_file_layouts() {
  return "Files (raw little-endian, row-major, as numpy tofile writes them):\n"
         "  --input         [rows, cols] of --dtype (fp32 4 bytes, bf16/fp16 2 bytes); rows may be\n"
         "                  grouped by --rows-per-expert (experts' rows consecutive).\n"
         "  --out-elements  E2M1 recipes: uint8 [rows, ceil(cols/2)], element 2i in bits [3:0], 2i+1\n"
         "                  in [7:4], an odd row's last high nibble 0. mxfp8_*: uint8 [rows, cols] E4M3.\n"
         "  --out-scales    uint8 block scales (E8M0 for mxfp*/ort_qmoe, UE4M3 for nvfp4_*), one per\n"
         "                  (row, block of recipe.block_size along cols), ceil(cols/block) per row.\n"
         "                  linear: [rows, ceil(cols/block)]. swizzled: 128x4 tiles of 512 bytes\n"
         "                  (SEMANTICS.md section 5), each expert's rows padded to 128, columns to 4;\n"
         "                  padding bytes 0.\n"
         "  --out-global    NVFP4: fp32 [G] decode scales s_dec (G = experts with\n"
         "                  --scale-per-expert, else 1); dequant = e2m1 * ue4m3 * s_dec.\n"
         "The last block of a row whose cols is not a multiple of the block is zero-padded for its\n"
         "amax. nvfp4_trtllm's rcp.approx table: --rcp-table FILE, else $MXV_RCP_APPROX_TABLE, else\n"
         "the committed H200 capture golden/captures/rcp_approx_ftz_f32_sm90.bin.\n";
}

void run_quantize(const QuantizeRequest& r, std::ostream& out) {
  const Recipe recipe = Recipe::by_name(r.recipe);
  const WideType type = wide_type_by_name(r.dtype);
  QuantizeOptions o;
  o.scale_layout = scale_layout_by_name(r.scale_layout);
  if (r.out_elements.empty()) throw std::invalid_argument("--out-elements: a file is required");
  if (r.out_scales.empty()) throw std::invalid_argument("--out-scales: a file is required");
  if (recipe.is_nvfp4() && (!r.out_global || r.out_global->empty())) {
    throw std::invalid_argument("--out-global: required for the NVFP4 recipe '" + r.recipe + "'");
  }
  if (r.rows_per_expert) o.group_counts = parse_counts_option("--rows-per-expert", *r.rows_per_expert);
  o.scale_per_group = r.scale_per_expert;
  if (r.scale_per_expert && !r.rows_per_expert) {
    throw std::invalid_argument("--scale-per-expert: needs --rows-per-expert");
  }
  if (r.tensor_amax) {
    float v = 0;
    const auto [end, ec] = std::from_chars(r.tensor_amax->data(), r.tensor_amax->data() + r.tensor_amax->size(), v);
    if (ec != std::errc() || end != r.tensor_amax->data() + r.tensor_amax->size()) {
      throw std::invalid_argument("--tensor-amax: '" + *r.tensor_amax + "' is not a number");
    }
    o.tensor_amax = v;
  }
  std::optional<RcpApproxTable> table;
  if (r.rcp_table) {
    table = RcpApproxTable::load(*r.rcp_table);
    o.rcp_table = &*table;
  }
  const std::int64_t cols = parse_int_option("--cols", r.cols, 1, std::int64_t{1} << 32);
  const std::vector<std::uint8_t> input = read_raw_file("--input", r.input);
  const auto row_bytes = static_cast<std::int64_t>(bytes_of(type)) * cols;
  if (static_cast<std::int64_t>(input.size()) % row_bytes != 0) {
    throw std::invalid_argument("--input: " + std::to_string(input.size()) + " bytes is not a whole number of rows of --cols " +
                                std::to_string(cols) + " " + r.dtype + " values");
  }
  const std::int64_t file_rows = static_cast<std::int64_t>(input.size()) / row_bytes;
  const std::int64_t rows = r.rows ? parse_int_option("--rows", *r.rows, 0, std::int64_t{1} << 40) : file_rows;
  if (rows != file_rows) {
    throw std::invalid_argument("--rows: " + std::to_string(rows) + " but --input holds " + std::to_string(file_rows) +
                                " rows of " + std::to_string(cols) + " " + r.dtype + " values");
  }
  const QuantizedActivations q = quantize_activations(recipe, type, input, rows, cols, o);
  std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files = {{r.out_elements, q.elements},
                                                                           {r.out_scales, q.scales}};
  if (r.out_global && !r.out_global->empty()) {
    std::vector<float> s_dec;
    for (const TensorScale& t : q.tensor) s_dec.push_back(t.s_dec);
    files.emplace_back(*r.out_global, narrow_from_fp32(WideType::kFp32, s_dec));
  }
  write_raw_files(files);
  out << "quantized " << rows << " x " << cols << " (" << r.dtype << ") with " << recipe.name << ": "
      << q.elements.size() << " element bytes, " << q.scales.size() << " scale bytes ("
      << to_string(o.scale_layout) << ")";
  if (recipe.is_nvfp4()) out << ", tensor amax " << q.tensor[0].amax << ", s_dec " << q.tensor[0].s_dec;
  out << "\n";
}

}  // namespace mxv
