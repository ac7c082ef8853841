// Glue for the matrix-free ridge solver on random binning features: Z v
// (rows over threads) and Z'u (grids over threads). R checks the shapes;
// column numbers come from rbin_columns_cpp and are below n_columns.
#include <Rcpp.h>

#include "kitchen/binned_products.hpp"
#include "parallel_chunks.h"

// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector binned_times_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector v,
                                     double value, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  Rcpp::NumericVector out(Rcpp::no_init(n));
  const int* c = cols.begin();
  const double* vp = v.begin();
  double* o = out.begin();
  kitchen_glue::parallel_for_chunks(n, 2.0 * n_grids, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::binned_times(c, n, n_grids, value, vp, begin, end, o);
  });
  return out;
}

// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector binned_crossprod_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector u,
                                         double n_columns, double value, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  Rcpp::NumericVector out(static_cast<std::size_t>(n_columns));
  const int* c = cols.begin();
  const double* up = u.begin();
  double* o = out.begin();
  kitchen_glue::parallel_for_chunks(n_grids, 3.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::binned_crossprod(c, n, value, up, begin, end, o);
  });
  return out;
}
