// Glue for the matrix-free ridge solver on random binning features: Z v
// (rows over threads) and Z'u (grids over threads). Both check the sizes of
// their arguments and every column number they use (cols may come from a
// tampered object or a direct call), and return a string saying what is
// wrong for R to report instead of reading or writing out of bounds.
#include <Rcpp.h>

#include <atomic>

#include "kitchen/binned_products.hpp"
#include "parallel_chunks.h"

namespace {

const char* bad_column_message =
    "{.arg cols} must hold column numbers from 0 to the number of columns - 1, or -1.";

}  // namespace

// v holds one value per column of Z.
// [[Rcpp::export(rng = false)]]
SEXP binned_times_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector v, double value,
                      int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol(), n_columns = v.size();
  Rcpp::NumericVector out(Rcpp::no_init(n));
  const int* c = cols.begin();
  const double* vp = v.begin();
  double* o = out.begin();
  std::atomic<bool> ok(true);
  kitchen_glue::parallel_for_chunks(n, 2.0 * n_grids, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    if (!kitchen::binned_times(c, n, n_grids, value, vp, n_columns, begin, end, o)) ok = false;
  });
  if (!ok) return Rf_mkString(bad_column_message);
  return out;
}

// u holds one value per row; the result one per column (n_columns).
// [[Rcpp::export(rng = false)]]
SEXP binned_crossprod_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector u, double n_columns,
                          double value, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  if (static_cast<std::size_t>(u.size()) != n) {
    return Rf_mkString("{.arg u} must hold one value per row of {.arg cols}.");
  }
  if (!(n_columns >= 0 && n_columns <= 2147483647.0)) {
    return Rf_mkString("{.arg n_columns} must be a count of at most 2^31 - 1.");
  }
  const std::size_t n_col = static_cast<std::size_t>(n_columns);
  Rcpp::NumericVector out(n_col);
  const int* c = cols.begin();
  const double* up = u.begin();
  double* o = out.begin();
  std::atomic<bool> ok(true);
  kitchen_glue::parallel_for_chunks(n_grids, 3.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    if (!kitchen::binned_crossprod(c, n, value, up, n_col, begin, end, o)) ok = false;
  });
  if (!ok) return Rf_mkString(bad_column_message);
  return out;
}
