// A dequantize-then-GEMM reference for one MoE expert layer, in double (Eigen), and the error
// norms used to compare a kernel's GEMM output against it. A GEMM's accumulation order is not
// reproducible (docs/design.md section 3.1, "Bit-exact means bit-exact"), so this is the one place
// a tolerance is allowed; the norms make it explicit and the caller states the bound it applies.
#pragma once

#include <Eigen/Dense>

#include <cstdint>
#include <span>

namespace mxv {

/// Y[M, N] = X[M, K] * W[N, K]^T in double. `x` is row-major [M, K], `w` row-major [N, K] (one
/// expert of dequantize_weights' [E, N, K]). Throws std::invalid_argument on size mismatch.
Eigen::MatrixXd expert_gemm(std::span<const float> x, std::int64_t m, std::int64_t k, std::span<const float> w,
                            std::int64_t n);

/// Error of a candidate against a reference (same shape). Non-finite entries are counted, not
/// folded into the norms.
struct ErrorNorms {
  double max_abs = 0.0;        // max |c - r|
  double max_rel = 0.0;        // max |c - r| / max(|r|, tiny)
  double rel_frobenius = 0.0;  // ||c - r||_F / ||r||_F (0 when both are 0)
  double rmse = 0.0;           // sqrt(mean (c - r)^2)
  std::int64_t nonfinite_mismatches = 0;  // entries where exactly one side is finite, or NaN vs not
};

ErrorNorms error_norms(const Eigen::MatrixXd& reference, const Eigen::MatrixXd& candidate);

}  // namespace mxv
