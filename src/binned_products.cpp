// Glue for the matrix-free ridge solver on random binning features: Z v
// (rows over threads) and Z'u (grids over threads). Both check the sizes of
// their arguments and every column number they use (cols may come from a
// tampered object or a direct call), and return a string saying what is
// wrong for R to report instead of reading or writing out of bounds.
#include <Rcpp.h>

#include <atomic>
#include <cmath>
#include <vector>

#include "kitchen/binned_products.hpp"
#include "kitchen/huge_pages.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"

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

// u holds one value per row, or is a matrix of k such columns; the result
// holds one value per column of Z (n_columns), or is an n_columns x k
// matrix. The k columns go through the rows' bins together (each bin's k
// sums side by side), each summed in the order it would be alone.
// [[Rcpp::export(rng = false)]]
SEXP binned_crossprod_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector u, double n_columns,
                          double value, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  const bool matrix = u.hasAttribute("dim");
  const std::size_t k = matrix ? Rcpp::NumericMatrix(u).ncol() : 1;
  if (static_cast<std::size_t>(u.size()) != n * k || (matrix && k == 0)) {
    return Rf_mkString("{.arg u} must hold one value per row of {.arg cols} (in each column).");
  }
  if (!(n_columns >= 0 && n_columns <= 2147483647.0)) {
    return Rf_mkString("{.arg n_columns} must be a count of at most 2^31 - 1.");
  }
  const std::size_t n_col = static_cast<std::size_t>(n_columns);
  const int* c = cols.begin();
  std::atomic<bool> ok(true);
  kitchen_glue::chunk_runner parallel{n_threads};
  if (k == 1) {
    Rcpp::NumericVector out(n_col);
    const double* up = u.begin();
    double* o = out.begin();
    parallel(n_grids, 3.0 * n, [&](std::size_t begin, std::size_t end) {
      if (!kitchen::binned_crossprod(c, n, value, up, n_col, begin, end, o)) ok = false;
    });
    if (!ok) return Rf_mkString(bad_column_message);
    if (matrix) out.attr("dim") = Rcpp::Dimension(n_col, 1);
    return out;
  }
  // R's columns interleaved (entry i of column j at [i * k + j]), and back
  std::vector<double> u_rows(n * k);
  const double* up = u.begin();
  parallel(n, 2.0 * k, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = 0; j < k; ++j) u_rows[i * k + j] = up[j * n + i];
    }
  });
  kitchen::huge_page_vector<double> out_rows(n_col * k);
  parallel(n_grids, 3.0 * n * k, [&](std::size_t begin, std::size_t end) {
    if (!kitchen::binned_crossprod_columns(c, n, value, u_rows.data(), k, n_col, begin, end,
                                           out_rows.data())) {
      ok = false;
    }
  });
  if (!ok) return Rf_mkString(bad_column_message);
  Rcpp::NumericMatrix out(kitchen_glue::alloc_result_matrix(n_col, k));
  double* o = out.begin();
  parallel(n_col, 2.0 * k, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = 0; j < k; ++j) {
      for (std::size_t i = begin; i < end; ++i) o[j * n_col + i] = out_rows[i * k + j];
    }
  });
  return out;
}

// Scores of rows from their bin columns: out[i, j] = value * sum over grids
// of coefficients[cols[i, g], j], reading only the coefficients the rows
// use (a fit's predict() of a few rows costs O(n_grids), whatever the
// number of bins). Returns a string if a column number is bad or a
// coefficient used is not finite (the fit's checks leave those to us).
// [[Rcpp::export(rng = false)]]
SEXP binned_scores_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericMatrix coefficients, double value,
                       int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  const std::size_t n_col = coefficients.nrow(), k = coefficients.ncol();
  Rcpp::NumericMatrix out(Rcpp::no_init(n, k));
  const int* c = cols.begin();
  std::atomic<bool> ok(true);
  for (std::size_t j = 0; j < k; ++j) {
    const double* w = coefficients.begin() + j * n_col;
    double* o = out.begin() + j * n;
    kitchen_glue::parallel_for_chunks(n, 2.0 * n_grids, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      if (!kitchen::binned_times(c, n, n_grids, value, w, n_col, begin, end, o)) ok = false;
    });
  }
  if (!ok) return Rf_mkString(bad_column_message);
  for (std::size_t i = 0; i < n * k; ++i) {
    // A sum of finite coefficients times a finite value is finite unless
    // it overflows; NaN or Inf here means a coefficient used was not finite.
    if (!std::isfinite(out[i])) {
      return Rf_mkString("{.field coefficients} must be a matrix of finite doubles (one row per feature of {.field map}).");
    }
  }
  return out;
}
