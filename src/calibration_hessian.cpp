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
      for (std::size_t j = k; j < d; ++j) {
        const double* xj = x + j * n;
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) sum += scaled[i] * xj[i];
        hessian(offset + j, offset + k) += sum;
        if (j != k) hessian(offset + k, offset + j) += sum;
      }
    }
  }
  return hessian;
}
