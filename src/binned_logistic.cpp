// Glue for the Newton steps of logistic fits on random binning features
// (R/krr_binned_logistic.R): the Schur complement of the Hessian in the
// intercepts (kitchen/binned_logistic.hpp) solved by preconditioned
// conjugate gradients (kitchen/binned_cg.hpp) for all free classes at once.
// Products run over threads (rows for Z v, grids for Z'u, each in order, so
// results do not depend on the thread count), as do the solver's vector
// updates and sums (binned_cg.hpp); the calling thread checks for
// interrupts between iterations.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "kitchen/binned_cg.hpp"
#include "kitchen/binned_logistic.hpp"
#include "kitchen/binned_products.hpp"
#include "parallel_chunks.h"

// cols: n x n_grids column numbers (-1 for none); prob: n x f probabilities
// of the free classes; w: n row weights; c_plus: the f x f pseudo-inverse of
// the intercepts' Hessian; precondition, b, start: n_columns x f. Solves
// (A - B C^+ B' + lambda2 I) x = b. Returns list(x, iterations, residual),
// or a string saying what is wrong with the sizes or a column number.
// [[Rcpp::export(rng = false)]]
SEXP binned_logistic_cg_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericMatrix prob,
                            Rcpp::NumericVector w, Rcpp::NumericMatrix c_plus,
                            Rcpp::NumericMatrix precondition, Rcpp::NumericMatrix b,
                            Rcpp::NumericMatrix start, double lambda2, double value, double tol,
                            int max_iter, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  const std::size_t f = prob.ncol(), n_col = b.nrow();
  if (static_cast<std::size_t>(prob.nrow()) != n || static_cast<std::size_t>(w.size()) != n) {
    return Rf_mkString("{.arg prob} and {.arg w} must have one row per row of {.arg cols}.");
  }
  if (static_cast<std::size_t>(c_plus.nrow()) != f || static_cast<std::size_t>(c_plus.ncol()) != f ||
      static_cast<std::size_t>(b.ncol()) != f ||
      static_cast<std::size_t>(precondition.nrow()) != n_col ||
      static_cast<std::size_t>(precondition.ncol()) != f ||
      static_cast<std::size_t>(start.nrow()) != n_col ||
      static_cast<std::size_t>(start.ncol()) != f) {
    return Rf_mkString("{.arg c_plus}, {.arg precondition}, {.arg b} and {.arg start} must have one column per free class (and {.arg c_plus} one row).");
  }
  for (std::size_t k = 0; k < n_col * f; ++k) {
    if (!(precondition[k] > 0)) return Rf_mkString("{.arg precondition} must be positive.");
  }
  const int* c = cols.begin();
  const double* p = prob.begin();
  const double* wp = w.begin();
  const double* cp = c_plus.begin();
  std::vector<double> t(n * f), colsum(f), shift(f);
  std::atomic<bool> ok(true);
  auto apply = [&](const double* v, double* out) {
    double* tp = t.data();
    kitchen_glue::parallel_for_chunks(n, 2.0 * n_grids * f, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = 0; k < f; ++k) {
        if (!kitchen::binned_times(c, n, n_grids, value, v + k * n_col, n_col, begin, end,
                                   tp + k * n)) {
          ok = false;
        }
      }
      kitchen::logistic_hessian_rows(p, wp, n, f, begin, end, tp);
    });
    // B'v, in row order on this thread (the same sums for any thread count)
    for (std::size_t k = 0; k < f; ++k) {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += tp[k * n + i];
      colsum[k] = s;
    }
    for (std::size_t k = 0; k < f; ++k) {
      double s = 0;
      for (std::size_t l = 0; l < f; ++l) s += cp[l * f + k] * colsum[l];
      shift[k] = -s;
    }
    kitchen_glue::parallel_for_chunks(n, 4.0 * f, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      kitchen::logistic_hessian_shift(p, wp, n, f, shift.data(), begin, end, tp);
    });
    std::fill(out, out + n_col * f, 0.0);
    for (std::size_t k = 0; k < f; ++k) {
      kitchen_glue::parallel_for_chunks(n_grids, 3.0 * n, n_threads,
                                        [&](std::size_t begin, std::size_t end) {
        if (!kitchen::binned_crossprod(c, n, value, tp + k * n, n_col, begin, end,
                                       out + k * n_col)) {
          ok = false;
        }
      });
    }
    for (std::size_t k = 0; k < n_col * f; ++k) out[k] += lambda2 * v[k];
  };
  Rcpp::NumericMatrix x = Rcpp::clone(start);
  const kitchen::cg_report report = kitchen::preconditioned_cg(
      apply, b.begin(), precondition.begin(), n_col * f, tol, max_iter, x.begin(),
      [] { Rcpp::checkUserInterrupt(); }, kitchen_glue::chunk_runner{n_threads});
  if (!ok) {
    return Rf_mkString("{.arg cols} must hold column numbers from 0 to the number of columns - 1, or -1.");
  }
  return Rcpp::List::create(Rcpp::Named("x") = x, Rcpp::Named("iterations") = report.iterations,
                            Rcpp::Named("residual") = report.residual);
}
