// Expert GEMM reference in double and its error norms: a product small enough to do by hand, and
// a planted error the norms must report.
#include "mxv/reference/expert_gemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mxv {
namespace {

// X = [[1, 2], [3, 4]], W = [[1, 0], [0.5, -1]] (rows are output features):
// Y = X W^T = [[1, 0.5 - 2], [3, 1.5 - 4]] = [[1, -1.5], [3, -2.5]].
TEST(ExpertGemm, SmallProductByHand) {
  const std::vector<float> x = {1, 2, 3, 4};
  const std::vector<float> w = {1, 0, 0.5f, -1};
  const Eigen::MatrixXd y = expert_gemm(x, 2, 2, w, 2);
  EXPECT_EQ(y(0, 0), 1.0);
  EXPECT_EQ(y(0, 1), -1.5);
  EXPECT_EQ(y(1, 0), 3.0);
  EXPECT_EQ(y(1, 1), -2.5);
  EXPECT_THROW(expert_gemm(x, 2, 2, std::vector<float>(3), 2), std::invalid_argument);
}

// A planted error of 0.25 in one entry of [[1, -1.5], [3, -2.5]]: max_abs 0.25, max_rel
// 0.25 / 2.5 = 0.1, rmse sqrt(0.0625 / 4) = 0.125, relative Frobenius 0.25 / sqrt(1 + 2.25 + 9 +
// 6.25) = 0.25 / sqrt(18.5).
TEST(ExpertGemm, NormsReportAPlantedError) {
  Eigen::MatrixXd r(2, 2);
  r << 1, -1.5, 3, -2.5;
  Eigen::MatrixXd c = r;
  EXPECT_EQ(error_norms(r, c).max_abs, 0.0);
  c(1, 1) = -2.25;
  const ErrorNorms e = error_norms(r, c);
  EXPECT_EQ(e.max_abs, 0.25);
  EXPECT_DOUBLE_EQ(e.max_rel, 0.1);
  EXPECT_DOUBLE_EQ(e.rmse, 0.125);
  EXPECT_DOUBLE_EQ(e.rel_frobenius, 0.25 / std::sqrt(18.5));
  c(0, 0) = NAN;
  EXPECT_EQ(error_norms(r, c).nonfinite_mismatches, 1);
}

}  // namespace
}  // namespace mxv
