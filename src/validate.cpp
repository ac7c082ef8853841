// Glue for argument checks and column summaries that need a fast pass over
// the data.
#include <Rcpp.h>

#include "kitchen/column_moments.hpp"
#include "kitchen/finite.hpp"
#include "parallel_chunks.h"

// 1-based position of the first NA/NaN/Inf in a double vector, 0 if none.
// [[Rcpp::export(rng = false)]]
double first_nonfinite_cpp(SEXP x) {
  const std::size_t n = static_cast<std::size_t>(XLENGTH(x));
  const std::size_t i = kitchen::first_nonfinite(REAL(x), n);
  return i == n ? 0.0 : static_cast<double>(i) + 1.0;
}

// list(mean, sd) of each column of a dense double matrix.
// [[Rcpp::export(rng = false)]]
Rcpp::List column_moments_cpp(Rcpp::NumericMatrix x, int n_threads) {
  const std::size_t n = x.nrow(), d = x.ncol();
  Rcpp::NumericVector mean(d), sd(d);
  double* m = mean.begin();
  double* s = sd.begin();
  const double* xp = x.begin();
  kitchen_glue::parallel_for_chunks(d, 3.0 * n, n_threads, [&](std::size_t begin, std::size_t end) {
    kitchen::column_moments(xp, n, begin, end, m, s);
  });
  return Rcpp::List::create(Rcpp::Named("mean") = mean, Rcpp::Named("sd") = sd);
}

// list(low, high) of each column of a dense double matrix with >= 1 row.
// [[Rcpp::export(rng = false)]]
Rcpp::List column_ranges_cpp(Rcpp::NumericMatrix x, int n_threads) {
  const std::size_t n = x.nrow(), d = x.ncol();
  Rcpp::NumericVector low(d), high(d);
  double* lo = low.begin();
  double* hi = high.begin();
  const double* xp = x.begin();
  kitchen_glue::parallel_for_chunks(d, 2.0 * n, n_threads, [&](std::size_t begin, std::size_t end) {
    kitchen::column_ranges(xp, n, begin, end, lo, hi);
  });
  return Rcpp::List::create(Rcpp::Named("low") = low, Rcpp::Named("high") = high);
}
