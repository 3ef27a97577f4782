// fp32 exp from fma/add/mul in one fixed order; the algorithm and its constants are documented
// step by step in portable_exp.h (docs/semantics.md section 7.1). This file must be compiled with
// -ffp-contract=off (set in reference/CMakeLists.txt): a contracted a*b+c would round once
// instead of twice on one side only and break CPU/GPU identity. Every fma is written explicitly.
#include "mxv/reference/portable_exp.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace mxv {
namespace {

// Step 1: adding 1.5 * 2^23 puts round-to-nearest-even(x * log2e) in the low mantissa bits.
constexpr float kShift = 0x1.8p+23f;
constexpr float kLog2e = 0x1.715476p+0f;  // fp32 nearest log2(e)
// Step 2: Cody-Waite split of ln 2 (hi is the fp32 nearest ln 2, lo the fp32 nearest the rest).
constexpr float kLn2Hi = 0x1.62e43p-1f;
constexpr float kLn2Lo = -0x1.05c61p-29f;
// Step 3: exp(r) ~ 1 + r*(1 + r*(C2 + r*(C3 + ... + r*C7))); fit described in the header.
constexpr float kC7 = 0x1.a12532p-13f;
constexpr float kC6 = 0x1.6d436ep-10f;
constexpr float kC5 = 0x1.1110ep-7f;
constexpr float kC4 = 0x1.5554e8p-5f;
constexpr float kC3 = 0x1.555556p-3f;
constexpr float kC2 = 0x1.0p-1f;

static_assert(kC2 == 0.5f, "the r^2 coefficient of exp is exactly 1/2 after fp32 rounding");
static_assert(kShift == 12582912.0f);

// 2^k for -126 <= k <= 127, built from the exponent field (exact bit manipulation, step 4).
float pow2(int k) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
}

}  // namespace

// On x86-64 the function is compiled twice, with and without the FMA instructions, and the
// loader picks one (GCC/Clang target_clones): std::fma without -mfma is a libm call costing
// ~5x more. Both clones compute the same bits, since fma is exactly rounded either way.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MXV_FMA_CLONES [[gnu::target_clones("fma", "default")]]
#else
#define MXV_FMA_CLONES
#endif

MXV_FMA_CLONES float portable_exp(float x) {
  // Step 0: NaN, overflow, underflow. (x != x is the portable NaN test; no fast-math here.)
  if (std::isnan(x)) return std::bit_cast<float>(kCanonicalNanBits);
  if (x > kPortableExpMaxFinite) return std::numeric_limits<float>::infinity();
  if (x < kPortableExpZeroBelow) return 0.0f;

  // Step 1: n = round(x * log2e), both as an integer (from the bits) and as a float.
  const float t = std::fma(x, kLog2e, kShift);
  const int n = static_cast<int>(std::bit_cast<std::uint32_t>(t)) -
                static_cast<int>(std::bit_cast<std::uint32_t>(kShift));
  const float nf = t - kShift;

  // Step 2: r = x - n*ln2, the first fma exact, the second adding the low part of ln 2.
  float r = std::fma(nf, -kLn2Hi, x);
  r = std::fma(nf, -kLn2Lo, r);

  // Step 3: Horner, innermost coefficient first.
  float q = kC7;
  q = std::fma(q, r, kC6);
  q = std::fma(q, r, kC5);
  q = std::fma(q, r, kC4);
  q = std::fma(q, r, kC3);
  q = std::fma(q, r, kC2);
  q = std::fma(q, r, 1.0f);
  const float p = std::fma(q, r, 1.0f);

  // Step 4: scale by 2^n in two normal factors; only the second product can round.
  const int n1 = n >> 1;  // arithmetic shift: floor(n / 2), n1 and n - n1 both in [-75, 64]
  const int n2 = n - n1;
  return (p * pow2(n1)) * pow2(n2);
}

void portable_exp(std::span<const float> in, std::span<float> out) {
  if (in.size() != out.size()) {
    throw std::invalid_argument("portable_exp: out has " + std::to_string(out.size()) +
                                " elements, in has " + std::to_string(in.size()) +
                                "; they must be equal");
  }
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = portable_exp(in[i]);
}

std::uint64_t ulp_distance(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) {
    throw std::invalid_argument("ulp_distance: arguments must not be NaN");
  }
  // Map the sign-magnitude bit patterns onto one ordered integer line (+0 and -0 both to 0).
  auto key = [](float f) -> std::int64_t {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
    const std::int64_t magnitude = static_cast<std::int64_t>(bits & 0x7FFFFFFFu);
    return (bits >> 31) != 0 ? -magnitude : magnitude;
  };
  const std::int64_t d = key(a) - key(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

}  // namespace mxv

// ---- Accuracy measurement -----------------------------------------------------------------

namespace mxv {
namespace {

// Spacing of fp32 values at |f| (f finite): 2^(e-23) for normals, 2^-149 for subnormals.
double fp32_ulp_at(float f) {
  const std::uint32_t exponent_field = (std::bit_cast<std::uint32_t>(f) >> 23) & 0xFFu;
  const int e = exponent_field == 0 ? -126 : static_cast<int>(exponent_field) - 127;
  return std::ldexp(1.0, e - 23);
}

// True when `value` (>= 0, the exact exp as a double or long double) lies within `relative` *
// value of a boundary where rounding to fp32 changes: the midpoints between f = fp32(value) and
// its neighbours (exact in double, since a midpoint needs 25 significant bits). Neighbours are
// found from the bit pattern (f >= 0, so +-1 on the bits is the next value up or down).
template <class Wide>
bool near_fp32_boundary(Wide value, Wide relative) {
  const float f = static_cast<float>(value);
  if (std::isinf(f)) return false;
  const std::uint32_t b = std::bit_cast<std::uint32_t>(f);
  const Wide slack = relative * value;
  auto near_midpoint = [&](std::uint32_t neighbour_bits) {
    const Wide mid = (static_cast<Wide>(f) + static_cast<Wide>(std::bit_cast<float>(neighbour_bits))) / 2;
    return (value < mid ? mid - value : value - mid) <= slack;
  };
  return (b > 0 && near_midpoint(b - 1)) || near_midpoint(b + 1);
}

// The correctly rounded exp of a non-NaN x, and the double approximation it came from.
float correctly_rounded_exp_of(float x, double& exact) {
  exact = std::exp(static_cast<double>(x));
  if (!near_fp32_boundary(exact, std::ldexp(1.0, -48))) return static_cast<float>(exact);
  const long double ld = std::exp(static_cast<long double>(x));
  if (std::numeric_limits<long double>::digits >= 64 &&
      !near_fp32_boundary(ld, std::ldexp(1.0L, -60))) {
    return static_cast<float>(ld);
  }
  throw std::runtime_error("correctly_rounded_exp: cannot decide the rounding of exp(" +
                           std::to_string(x) + ")");
}

}  // namespace

float correctly_rounded_exp(float x) {
  if (std::isnan(x)) return std::bit_cast<float>(kCanonicalNanBits);
  double exact = 0.0;
  return correctly_rounded_exp_of(x, exact);
}

ExpErrorReport measure_exp_error(float (*candidate)(float), std::uint32_t stride,
                                 unsigned threads) {
  if (candidate == nullptr) throw std::invalid_argument("measure_exp_error: candidate is null");
  if (stride == 0) throw std::invalid_argument("measure_exp_error: stride must be >= 1");
  if (threads == 0) throw std::invalid_argument("measure_exp_error: threads must be >= 1");

  // Thread t takes the t-th of `threads` contiguous slices of the sampled indices, so the
  // "first worst input" is well defined: reports are merged in slice order.
  const std::uint64_t samples = (std::uint64_t{1} << 32) / stride +
                                (((std::uint64_t{1} << 32) % stride) != 0 ? 1 : 0);
  std::vector<ExpErrorReport> partial(threads);
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](unsigned t) {
    try {
      ExpErrorReport& rep = partial[t];
      const std::uint64_t begin = samples * t / threads;
      const std::uint64_t end = samples * (t + 1) / threads;
      for (std::uint64_t i = begin; i < end; ++i) {
        const float x = std::bit_cast<float>(static_cast<std::uint32_t>(i * stride));
        const float got = candidate(x);
        if (std::isnan(x) || std::isnan(got)) {
          if (!(std::isnan(x) && std::isnan(got))) ++rep.nan_mismatches;
          continue;
        }
        double exact = 0.0;
        const float want = correctly_rounded_exp_of(x, exact);
        ++rep.inputs;
        const std::uint64_t ulps = ulp_distance(got, want);
        ++rep.count_by_ulp[ulps < 7 ? ulps : 7];
        if (ulps > rep.max_ulp) {
          rep.max_ulp = ulps;
          rep.worst_input = x;
        }
        if (!std::isinf(want) && !std::isinf(got)) {
          const double err = std::fabs(static_cast<double>(got) - exact) / fp32_ulp_at(want);
          if (err > rep.max_error_ulp) rep.max_error_ulp = err;
        }
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }

  ExpErrorReport total;
  for (const ExpErrorReport& rep : partial) {
    total.inputs += rep.inputs;
    for (std::size_t k = 0; k < total.count_by_ulp.size(); ++k) {
      total.count_by_ulp[k] += rep.count_by_ulp[k];
    }
    if (rep.max_ulp > total.max_ulp) {
      total.max_ulp = rep.max_ulp;
      total.worst_input = rep.worst_input;
    }
    if (rep.max_error_ulp > total.max_error_ulp) total.max_error_ulp = rep.max_error_ulp;
    total.nan_mismatches += rep.nan_mismatches;
  }
  return total;
}

}  // namespace mxv
