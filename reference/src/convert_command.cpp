// `mxv convert`: file conversion through the format models and the exhaustive fp32 sweep with
// one SHA-256 per 2^24-pattern chunk, which the GPU scripts compare against torch, ml_dtypes and
// hardware (tools/gpu/torch_dialect_check.py). Files are raw little-endian, as numpy's tofile
// writes them; the output is written all or nothing through mxv::io::OutputBatch.
#include "mxv/reference/convert_command.h"

#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mxv/io/checked_size.h"
#include "mxv/io/input_file.h"
#include "mxv/io/option_value.h"
#include "mxv/io/output_files.h"
#include "mxv/reference/command_options.h"
#include "mxv/reference/float_format.h"
#include "mxv/reference/small_float.h"
#include "mxv/reference/wide_float.h"

namespace mxv {
namespace {

struct Resolved {
  const FloatFormat* format;
  ConvertMode mode;
};

// --format and --dialect, refused naming the option.
const FloatFormat& format_option(const std::string& name) {
  return for_option("--format", [&]() -> const FloatFormat& { return format_by_name(name); });
}
Dialect dialect_option(const std::optional<std::string>& name) {
  return for_option("--dialect", [&] { return dialect_by_name(name.value_or("cuda")); });
}

// Explicit choices are validated as given; missing ones default to the first the format
// supports in that dialect, so `--format e8m0` alone means ceil (up), satfinite.
Resolved resolve_mode(const ConvertRequest& r) {
  Resolved out{&format_option(r.format), {}};
  out.mode.dialect = dialect_option(r.dialect);
  std::vector<Rounding> roundings{Rounding::kNearestEven, Rounding::kUp, Rounding::kTowardZero};
  std::vector<Saturation> saturations{Saturation::kFinite, Saturation::kNone};
  if (r.rounding) roundings = {for_option("--rounding", [&] { return rounding_by_name(*r.rounding); })};
  if (r.saturation) saturations = {for_option("--saturation", [&] { return saturation_by_name(*r.saturation); })};
  for (Rounding ro : roundings) {
    for (Saturation sa : saturations) {
      const ConvertMode m{ro, sa, out.mode.dialect};
      if (supports(*out.format, m)) {
        out.mode = m;
        return out;
      }
    }
  }
  // Nothing fits: let validate() say why for the first explicit combination.
  validate(*out.format, ConvertMode{roundings.front(), saturations.front(), out.mode.dialect});
  throw std::invalid_argument("mode: no supported mode");  // not reached
}

std::size_t element_size(std::string_view option, const std::string& type) {
  if (type == "fp32") return 4;
  if (type == "bf16" || type == "fp16") return 2;
  throw std::invalid_argument(std::string(option) + ": '" + type + "' is not one of fp32, bf16, fp16");
}

std::pair<unsigned, unsigned> parse_chunks(const std::string& s) {
  const auto colon = s.find(':');
  auto parse = [&](std::string_view part, unsigned& v) {
    const auto* end = part.data() + part.size();
    const auto res = std::from_chars(part.data(), end, v);
    return res.ec == std::errc{} && res.ptr == end && !part.empty();
  };
  unsigned lo = 0;
  unsigned hi = 0;
  const std::string_view sv = s;
  if (colon == std::string::npos || !parse(sv.substr(0, colon), lo) ||
      !parse(sv.substr(colon + 1), hi) || lo >= hi || hi > 256) {
    throw std::invalid_argument("--chunks: '" + s +
                                "' is not LO:HI with integers 0 <= LO < HI <= 256");
  }
  return {lo, hi};
}

std::uint16_t load16(const std::uint8_t* p) {
  return static_cast<std::uint16_t>(p[0] | (p[1] << 8));
}
std::uint32_t load32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

void convert_file(const ConvertRequest& r) {
  io::reject_if_given(r.digest, "--digest", "without --sweep fp32");
  io::reject_if_given(r.chunks.has_value(), "--chunks", "without --sweep fp32");
  io::reject_if_given(r.decode && r.rounding.has_value(), "--rounding", "with --decode (decoding is exact)");
  io::reject_if_given(r.decode && r.saturation.has_value(), "--saturation", "with --decode (decoding is exact)");
  io::reject_if_given(r.decode && r.dtype.has_value(), "--dtype",
                      "with --decode (the input is codes; give the output type with --out-dtype)");
  io::reject_if_given(!r.decode && r.out_dtype.has_value(), "--out-dtype",
                      "without --decode (the output is codes; give the input type with --dtype)");
  const std::string type = r.decode ? r.out_dtype.value_or("fp32") : r.dtype.value_or("fp32");
  const std::size_t width = element_size(r.decode ? "--out-dtype" : "--dtype", type);
  const Resolved m = r.decode ? Resolved{&format_option(r.format), {}} : resolve_mode(r);
  io::OutputBatch files;
  files.input("--input", r.input);
  files.output("--output", r.output);
  const std::vector<std::uint8_t> in = io::read_input("--input", r.input);
  std::vector<std::uint8_t> out;
  if (r.decode) {
    const FloatFormat& f = *m.format;
    const Dialect dialect = dialect_option(r.dialect);
    // A byte that is no code of the format is refused naming --input and its offset there.
    check_codes("--input", r.input, in, [&](std::uint8_t code) { (void)decode(f, code, dialect); });
    std::vector<float> values(in.size());
    decode(f, in, values, dialect);
    out.resize(io::SizeProduct("--output bytes").times(static_cast<std::int64_t>(in.size()), "codes").times(
        static_cast<std::int64_t>(width), type + " bytes").size());
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::uint8_t* p = out.data() + i * width;
      // E8M0 spans 2^-127..2^127: bf16 holds it exactly, fp16 rounds (to 0 or Inf) outside
      // its range. E2M1 and E4M3 values are exact in all three.
      const std::uint32_t v = width == 4 ? std::bit_cast<std::uint32_t>(values[i])
                              : type == "bf16" ? float_to_bf16(values[i])
                                                 : float_to_fp16(values[i]);
      for (std::size_t b = 0; b < width; ++b) p[b] = static_cast<std::uint8_t>(v >> (8 * b));
    }
  } else {
    if (in.size() % width != 0) {
      throw std::invalid_argument("--input: '" + r.input + "' holds " +
                                  std::to_string(in.size()) + " bytes, not a multiple of the " +
                                  std::to_string(width) + "-byte " + type + " element");
    }
    const std::size_t n = in.size() / width;
    out.resize(n);
    if (width == 4) {
      std::vector<float> xs(n);
      for (std::size_t i = 0; i < n; ++i) xs[i] = std::bit_cast<float>(load32(&in[4 * i]));
      encode(*m.format, xs, out, m.mode);
    } else {
      std::vector<std::uint16_t> xs(n);
      for (std::size_t i = 0; i < n; ++i) xs[i] = load16(&in[2 * i]);
      if (type == "bf16") {
        encode_bf16(*m.format, xs, out, m.mode);
      } else {
        encode_fp16(*m.format, xs, out, m.mode);
      }
    }
  }
  files.set("--output", std::move(out));
  files.commit();
}

void sweep_fp32(const ConvertRequest& r, std::ostream& os) {
  if (r.sweep != "fp32") {
    throw std::invalid_argument("--sweep: '" + r.sweep + "' is not fp32 (the only sweep)");
  }
  if (!r.digest) throw std::invalid_argument("--sweep: needs --digest (2^32 codes are 4 GiB)");
  io::reject_if_given(!r.input.empty(), "--input", "with --sweep (the sweep generates its inputs)");
  io::reject_if_given(!r.output.empty(), "--output", "with --sweep (it prints digests)");
  io::reject_if_given(r.decode, "--decode", "with --sweep (the sweep encodes fp32 patterns)");
  io::reject_if_given(r.out_dtype.has_value(), "--out-dtype", "with --sweep (the sweep encodes fp32 patterns)");
  if (r.dtype.value_or("fp32") != "fp32") throw std::invalid_argument("--dtype: the sweep is over fp32 only");
  const Resolved m = resolve_mode(r);
  const auto [lo, hi] = parse_chunks(r.chunks.value_or("0:256"));
  // Chunks are independent: a few threads each take the next one; lines print in order.
  const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 8u));
  std::vector<std::string> digests(hi);
  for (unsigned base = lo; base < hi; base += threads) {
    const unsigned end = std::min(hi, base + threads);
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(end - base);
    for (unsigned k = base; k < end; ++k) {
      pool.emplace_back([&, k] {
        try {
          std::vector<std::uint8_t> codes(kSweepChunk);
          encode_fp32_pattern_range(*m.format, k * kSweepChunk, codes, m.mode);
          digests[k] = sha256_hex(codes);
        } catch (...) {
          errors[k - base] = std::current_exception();
        }
      });
    }
    for (auto& t : pool) t.join();
    for (auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    for (unsigned k = base; k < end; ++k) os << k << ' ' << digests[k] << '\n';
    os.flush();
    if (r.progress) {
      std::fprintf(stderr, "\rmxv convert: chunk %u of %u..%u", end, lo, hi);
      std::fflush(stderr);
    }
  }
  if (r.progress) std::fprintf(stderr, "\n");
}

}  // namespace

std::string sha256_hex(std::span<const std::uint8_t> bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), md, &len, EVP_sha256(), nullptr) != 1 || len != 32) {
    throw std::runtime_error("sha256: OpenSSL EVP_Digest failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(64, '0');
  for (unsigned i = 0; i < 32; ++i) {
    s[2 * i] = kHex[md[i] >> 4];
    s[2 * i + 1] = kHex[md[i] & 0xF];
  }
  return s;
}

void run_convert(const ConvertRequest& request, std::ostream& out) {
  format_option(request.format);  // a clear error before anything else
  if (!request.sweep.empty()) {
    sweep_fp32(request, out);
  } else {
    convert_file(request);
  }
}

}  // namespace mxv
