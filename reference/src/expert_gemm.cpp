// Expert GEMM reference in double (Eigen) and error norms; see expert_gemm.h.
#include "mxv/reference/expert_gemm.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace mxv {

Eigen::MatrixXd expert_gemm(std::span<const float> x, std::int64_t m, std::int64_t k, std::span<const float> w,
                            std::int64_t n) {
  if (m < 0 || k < 1 || n < 1) throw std::invalid_argument("expert_gemm: need m >= 0, k >= 1, n >= 1");
  if (static_cast<std::int64_t>(x.size()) != m * k) {
    throw std::invalid_argument("expert_gemm: x must have m*k = " + std::to_string(m * k) + " values, got " +
                                std::to_string(x.size()));
  }
  if (static_cast<std::int64_t>(w.size()) != n * k) {
    throw std::invalid_argument("expert_gemm: w must have n*k = " + std::to_string(n * k) + " values, got " +
                                std::to_string(w.size()));
  }
  using RowMajorF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMajorF> xm(x.data(), m, k);
  const Eigen::Map<const RowMajorF> wm(w.data(), n, k);
  // Every fp32 value is exact in double; products of two fp32 are exact too, so only the sums round.
  return xm.cast<double>() * wm.cast<double>().transpose();
}

ErrorNorms error_norms(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& candidate) {
  if (reference.rows() != candidate.rows() || reference.cols() != candidate.cols()) {
    throw std::invalid_argument("error_norms: shapes differ");
  }
  ErrorNorms e;
  double sum_sq = 0.0;
  double ref_sq = 0.0;
  std::int64_t finite = 0;
  for (Eigen::Index i = 0; i < reference.size(); ++i) {
    const double r = reference.data()[i];
    const double c = candidate.data()[i];
    if (!std::isfinite(r) || !std::isfinite(c)) {
      const bool same = (std::isnan(r) && std::isnan(c)) || r == c;
      if (!same) ++e.nonfinite_mismatches;
      continue;
    }
    const double d = std::fabs(c - r);
    e.max_abs = std::max(e.max_abs, d);
    e.max_rel = std::max(e.max_rel, d / std::max(std::fabs(r), std::numeric_limits<double>::min()));
    sum_sq += d * d;
    ref_sq += r * r;
    ++finite;
  }
  e.rel_frobenius = ref_sq > 0.0 ? std::sqrt(sum_sq / ref_sq) : (sum_sq > 0.0 ? INFINITY : 0.0);
  e.rmse = finite > 0 ? std::sqrt(sum_sq / static_cast<double>(finite)) : 0.0;
  return e;
}

}  // namespace mxv
