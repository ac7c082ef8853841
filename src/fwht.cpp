// Glue for fwht(): R checks the arguments; here we copy, transform, return.
#include <Rcpp.h>

#include <cmath>
#include <cstddef>

#include "kitchen/fwht.hpp"
#include "parallel_chunks.h"

// x: a double vector or matrix (checked in R); every column has length
// n_rows, a power of two. The result is a copy of x, attributes included.
// [[Rcpp::export(rng = false)]]
SEXP fwht_cpp(SEXP x, double n_rows, bool normalize, int n_threads, int simd) {
  const std::size_t n = static_cast<std::size_t>(n_rows);
  const std::size_t n_cols = n == 0 ? 0 : static_cast<std::size_t>(XLENGTH(x)) / n;
  const kitchen::simd_level level =
      kitchen::resolve_simd(static_cast<kitchen::simd_level>(simd));
  const double scale = normalize ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0;

  Rcpp::NumericVector out(Rf_duplicate(x));
  double* data = out.begin();

  const double cost_per_column = static_cast<double>(n) * (std::log2(static_cast<double>(n)) + 1.0);
  kitchen_glue::parallel_for_chunks(n_cols, cost_per_column, n_threads,
                                    [=](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      double* column = data + j * n;
      kitchen::fwht(column, n, level);
      if (normalize) {
        for (std::size_t i = 0; i < n; ++i) column[i] *= scale;
      }
    }
  });
  return out;
}

// The SIMD level this CPU supports (0 scalar, 1 AVX2, 2 AVX-512).
// [[Rcpp::export(rng = false)]]
int simd_detect_cpp() { return static_cast<int>(kitchen::detect_simd()); }
