// a %*% b on kitchen's AVX2 / AVX-512 product kernels (gemm_simd.hpp) over
// threads, for the dense products that R would run on its BLAS: the class
// calibration's out-of-fold scores (R/calibration.R): 16,000 rows of 4096
// features by 26 classes, about a second on the reference BLAS (Rprof).
// NULL when `simd` (a cap) leaves the scalar level on this CPU.
#include <Rcpp.h>

#include <algorithm>
#include <cstddef>

#include "kitchen/gemm_simd.hpp"
#include "packed_product_threads.h"
#include "result_matrix.h"
#include "simd_name.h"

// [[Rcpp::export(rng = false)]]
SEXP dense_product_cpp(Rcpp::NumericMatrix a, Rcpp::NumericMatrix b, int n_threads, SEXP simd) {
  const std::size_t rows = a.nrow(), inner = a.ncol(), cols = b.ncol();
  if (static_cast<std::size_t>(b.nrow()) != inner) {
    Rcpp::stop("a must have as many columns as b has rows.");
  }
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (level == kitchen::simd_level::scalar) return R_NilValue;  // this CPU has neither
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(rows, cols));
  if (inner == 0 || rows == 0 || cols == 0) {
    std::fill(REAL(out), REAL(out) + rows * cols, 0.0);
    return out;
  }
  kitchen::gemm_packed_rhs rhs(inner, cols, level);
  kitchen_glue::pack_over_threads(rhs, b.begin(), inner, level, n_threads);
  const double unit_cost = 2.0 * inner * kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                           kitchen::gram_strip_width(level);
  if (!kitchen_glue::packed_product_over_threads(a.begin(), rows, inner, rhs, cols, level,
                                                 REAL(out), rows, unit_cost, n_threads,
                                                 [](const kitchen::gemm_unit&) {})) {
    Rcpp::stop("Not enough memory for the product.");
  }
  return out;
}
