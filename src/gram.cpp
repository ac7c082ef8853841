// Glue for the Gram accumulation of krr_fit(): G + Z'Z for a block of
// feature rows, on Eigen panels spread over threads, or on R's BLAS (dsyrk)
// when it is an optimised one.
#include "blas_gemm.h"
#include <Rcpp.h>

#include "kitchen/gram.hpp"
#include "parallel_chunks.h"

// gram: D x D, of which only the upper triangle is read and updated; z:
// rows x D. Returns a new matrix: the argument is not modified. Call
// gram_symmetrize_cpp() once after the last block.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix gram_update_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix z,
                                    bool use_blas, int n_threads) {
  const std::size_t rows = z.nrow(), dim = z.ncol();
  Rcpp::NumericMatrix out = Rcpp::clone(gram);
  double* g = out.begin();
  const double* zp = z.begin();
  if (rows > 0) {
    if (use_blas) {
      kitchen_glue::blas_syrk_upper(static_cast<int>(dim), static_cast<int>(rows), zp,
                                    static_cast<int>(rows), g, static_cast<int>(dim));
    } else {
      const double panel_cost = static_cast<double>(rows) * dim * kitchen::gram_panel_width;
      kitchen_glue::parallel_for_chunks(kitchen::gram_n_panels(dim), panel_cost, n_threads,
                                        [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p) kitchen::gram_panel_update(zp, rows, rows, dim, p, g);
      });
    }
  }
  return out;
}

// The matrix with its upper triangle copied to the lower one.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix gram_symmetrize_cpp(Rcpp::NumericMatrix gram) {
  Rcpp::NumericMatrix out = Rcpp::clone(gram);
  kitchen::gram_symmetrize(out.begin(), static_cast<std::size_t>(out.nrow()));
  return out;
}
