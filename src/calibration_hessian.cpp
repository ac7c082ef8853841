// The Hessian of the class calibration's multinomial log-loss (R/calibration.R):
// sum_i w_i (diag(q_i) - q_i q_i') (x) x_i x_i' over the slopes of classes
// 2..K, for n rows of d calibration inputs (an intercept and the scores) and
// their probabilities q_i of classes 2..K. The q q' part is M'M, row i of M
// being sqrt(w_i) q_i (x) x_i: made here a block of rows at a time and added
// on the Gram kernels of the fit. In R, making M (n x d(K - 1): 16,000 x 675
// for 26 classes) cost more than the product, and a fit makes one Hessian per
// Newton step.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "gram_update.h"
#include "simd_name.h"

namespace {

// Adds a block-diagonal entry (j, k) of class block `offset`, and its mirror.
void add_symmetric(Rcpp::NumericMatrix& hessian, std::size_t offset, std::size_t j,
                   std::size_t k, double sum) {
  hessian(offset + j, offset + k) += sum;
  if (j != k) hessian(offset + k, offset + j) += sum;
}

}  // namespace

// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix calibration_hessian_cpp(Rcpp::NumericMatrix design, Rcpp::NumericMatrix q,
                                            Rcpp::NumericVector weights, int n_threads,
                                            SEXP simd) {
  const std::size_t n = design.nrow(), d = design.ncol(), classes = q.ncol();
  if (static_cast<std::size_t>(q.nrow()) != n || static_cast<std::size_t>(weights.size()) != n) {
    Rcpp::stop("design, q and weights must have one row (weight) per row.");
  }
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  const std::size_t size = d * classes;
  Rcpp::NumericMatrix upper(size, size);  // M'M, upper triangle
  const std::size_t block = 1024;
  std::vector<double> m(block * size);
  const double* x = design.begin();
  const double* p = q.begin();
  std::vector<double> root_w(n);  // once, not once per entry of M
  for (std::size_t i = 0; i < n; ++i) root_w[i] = std::sqrt(weights[i]);
  for (std::size_t start = 0; start < n; start += block) {
    const std::size_t rows = std::min(block, n - start);
    for (std::size_t a = 0; a < classes; ++a) {
      for (std::size_t j = 0; j < d; ++j) {
        double* column = m.data() + (a * d + j) * rows;
        for (std::size_t r = 0; r < rows; ++r) {
          const std::size_t i = start + r;
          column[r] = root_w[i] * p[i + a * n] * x[i + j * n];
        }
      }
    }
    kitchen_glue::gram_update_in_place(m.data(), rows, size, upper.begin(), false, n_threads,
                                       level);
    Rcpp::checkUserInterrupt();
  }
  // -M'M, then the block diagonal sum_i w_i q_ia x_i x_i' added
  Rcpp::NumericMatrix hessian(size, size);
  for (std::size_t c = 0; c < size; ++c) {
    for (std::size_t r = 0; r <= c; ++r) {
      hessian(r, c) = hessian(c, r) = -upper(r, c);
    }
  }
  std::vector<double> scaled(n);
  for (std::size_t a = 0; a < classes; ++a) {
    const std::size_t offset = a * d;
    for (std::size_t k = 0; k < d; ++k) {
      const double* xk = x + k * n;
      for (std::size_t i = 0; i < n; ++i) scaled[i] = weights[i] * p[i + a * n] * xk[i];
      // Four sums at a time, each over the rows in order: the same sums as
      // one at a time, but four independent chains of adds keep the adder
      // busy (one chain waited on each add's latency: most of a Hessian's
      // time with 26 classes).
      std::size_t j = k;
      for (; j + 4 <= d; j += 4) {
        const double* x0 = x + j * n;
        const double* x1 = x0 + n;
        const double* x2 = x1 + n;
        const double* x3 = x2 + n;
        double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (std::size_t i = 0; i < n; ++i) {
          s0 += scaled[i] * x0[i];
          s1 += scaled[i] * x1[i];
          s2 += scaled[i] * x2[i];
          s3 += scaled[i] * x3[i];
        }
        add_symmetric(hessian, offset, j, k, s0);
        add_symmetric(hessian, offset, j + 1, k, s1);
        add_symmetric(hessian, offset, j + 2, k, s2);
        add_symmetric(hessian, offset, j + 3, k, s3);
      }
      for (; j < d; ++j) {
        const double* xj = x + j * n;
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += scaled[i] * xj[i];
        add_symmetric(hessian, offset, j, k, sum);
      }
    }
  }
  return hessian;
}
