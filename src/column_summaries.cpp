// Column summaries of a dense double matrix, in parallel over columns: the
// moments that standard scaling uses and the ranges of min-max scaling and
// clipping (R/map.R).
#include <Rcpp.h>

#include "kitchen/column_moments.hpp"
#include "parallel_chunks.h"

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
