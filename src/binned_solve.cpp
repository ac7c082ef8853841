// Glue for the conjugate-gradient solves of random binning fits: one
// centred, row-weighted ridge system (Zc' W Zc + lambda I) w = b, with
// Zc = Z - 1 zbar', solved in C++ from a start (R/krr_binned.R). The
// products run over threads; the vector updates on the calling thread.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "kitchen/binned_cg.hpp"
#include "kitchen/binned_products.hpp"
#include "parallel_chunks.h"

// cols: n x n_grids column numbers (-1 for none); rows: n row weights;
// zbar, diagonal, b, start: one value per column; value: the features'
// non-zero. Returns list(x, iterations, residual), or a string saying what
// is wrong with the sizes or a column number.
// [[Rcpp::export(rng = false)]]
SEXP binned_cg_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector rows, Rcpp::NumericVector zbar,
                   Rcpp::NumericVector diagonal, Rcpp::NumericVector b, Rcpp::NumericVector start,
                   double lambda, double value, double tol, int max_iter, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol(), n_col = zbar.size();
  if (static_cast<std::size_t>(rows.size()) != n) {
    return Rf_mkString("{.arg rows} must hold one weight per row of {.arg cols}.");
  }
  if (static_cast<std::size_t>(diagonal.size()) != n_col ||
      static_cast<std::size_t>(b.size()) != n_col ||
      static_cast<std::size_t>(start.size()) != n_col) {
    return Rf_mkString("{.arg zbar}, {.arg diagonal}, {.arg b} and {.arg start} must have one value per column.");
  }
  const int* c = cols.begin();
  const double* w = rows.begin();
  const double* zb = zbar.begin();
  double n_rows = 0;
  for (std::size_t i = 0; i < n; ++i) n_rows += w[i];
  std::vector<double> precondition(n_col), t(n);
  for (std::size_t k = 0; k < n_col; ++k) precondition[k] = diagonal[k] + lambda;
  std::atomic<bool> ok(true);
  auto apply = [&](const double* p, double* ap) {
    double* tp = t.data();
    kitchen_glue::parallel_for_chunks(n, 2.0 * n_grids, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      if (!kitchen::binned_times(c, n, n_grids, value, p, n_col, begin, end, tp)) ok = false;
      for (std::size_t i = begin; i < end; ++i) tp[i] *= w[i];
    });
    std::fill(ap, ap + n_col, 0.0);
    kitchen_glue::parallel_for_chunks(n_grids, 3.0 * n, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      if (!kitchen::binned_crossprod(c, n, value, tp, n_col, begin, end, ap)) ok = false;
    });
    double zp = 0;
    for (std::size_t k = 0; k < n_col; ++k) zp += zb[k] * p[k];
    const double shift = n_rows * zp;
    for (std::size_t k = 0; k < n_col; ++k) ap[k] += lambda * p[k] - shift * zb[k];
  };
  Rcpp::NumericVector x = Rcpp::clone(start);
  const kitchen::cg_report report = kitchen::preconditioned_cg(
      apply, b.begin(), precondition.data(), n_col, tol, max_iter, x.begin(),
      [] { Rcpp::checkUserInterrupt(); });
  if (!ok) {
    return Rf_mkString("{.arg cols} must hold column numbers from 0 to the number of columns - 1, or -1.");
  }
  return Rcpp::List::create(Rcpp::Named("x") = x, Rcpp::Named("iterations") = report.iterations,
                            Rcpp::Named("residual") = report.residual);
}
