// Glue for the conjugate-gradient solves of random binning fits: one
// centred, row-weighted ridge system (Zc' W Zc + lambda I) w = b, with
// Zc = Z - 1 zbar', solved in C++ from a start (R/krr_binned.R). The
// products, vector updates and sums run over threads, each sum in a fixed
// order (binned_cg.hpp), so results do not depend on the thread count.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "kitchen/binned_cg.hpp"
#include "kitchen/binned_products.hpp"
#include "kitchen/huge_pages.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"

// cols: n x n_grids column numbers (-1 for none); rows: n row weights;
// zbar, diagonal: one value per column; b, start: one column of as many
// values per right-hand side, solved together (binned_cg.hpp); value: the
// features' non-zero. Returns list(x, iterations, residual), one column or
// value per right-hand side, or a string saying what is wrong with the
// sizes or a column number.
// [[Rcpp::export(rng = false)]]
SEXP binned_cg_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector rows, Rcpp::NumericVector zbar,
                   Rcpp::NumericVector diagonal, Rcpp::NumericMatrix b, Rcpp::NumericMatrix start,
                   double lambda, double value, double tol, int max_iter, int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol(), n_col = zbar.size(), k = b.ncol();
  if (static_cast<std::size_t>(rows.size()) != n) {
    return Rf_mkString("{.arg rows} must hold one weight per row of {.arg cols}.");
  }
  if (static_cast<std::size_t>(diagonal.size()) != n_col ||
      static_cast<std::size_t>(b.nrow()) != n_col ||
      static_cast<std::size_t>(start.nrow()) != n_col ||
      static_cast<std::size_t>(start.ncol()) != k) {
    return Rf_mkString("{.arg zbar}, {.arg diagonal}, {.arg b} and {.arg start} must have one value per column (and {.arg b}, {.arg start} as many columns).");
  }
  const int* c = cols.begin();
  const double* w = rows.begin();
  const double* zb = zbar.begin();
  double n_rows = 0;
  for (std::size_t i = 0; i < n; ++i) n_rows += w[i];
  std::vector<double> precondition(n_col);
  kitchen::huge_page_vector<double> t(n * k);
  for (std::size_t i = 0; i < n_col; ++i) precondition[i] = diagonal[i] + lambda;
  // R's columns interleaved for the solve, and back
  kitchen::huge_page_vector<double> b_rows(n_col * k), x_rows(n_col * k);
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < n_col; ++i) {
      b_rows[i * k + j] = b(i, j);
      x_rows[i * k + j] = start(i, j);
    }
  }
  std::vector<kitchen::cg_report> reports(k);
  std::atomic<bool> ok(true);
  kitchen_glue::chunk_runner parallel{n_threads};
  // `width`: k, or 1 known when compiling (binned_cg.hpp)
  auto solve = [&](auto width) {
    std::vector<double> zp(k), partial;
    auto apply = [&](const double* p, double* ap) {
      double* tp = t.data();
      parallel(n, 2.0 * n_grids * k, [&](std::size_t begin, std::size_t end) {
        if (!kitchen::binned_times_columns(c, n, n_grids, value, p, width, n_col, begin, end,
                                           tp)) {
          ok = false;
        }
        for (std::size_t i = begin; i < end; ++i) {
          for (std::size_t j = 0; j < width; ++j) tp[i * width + j] *= w[i];
        }
      });
      parallel(n_col, 1.0 * k, [&](std::size_t begin, std::size_t end) {
        std::fill(ap + begin * width, ap + end * width, 0.0);
      });
      parallel(n_grids, 3.0 * n * k, [&](std::size_t begin, std::size_t end) {
        if (!kitchen::binned_crossprod_columns(c, n, value, tp, width, n_col, begin, end, ap)) {
          ok = false;
        }
      });
      kitchen::cg_blocked_sums(parallel, n_col, k, k,
                               [&](std::size_t begin, std::size_t end, double* s) {
        for (std::size_t i = begin; i < end; ++i) {
          for (std::size_t j = 0; j < width; ++j) s[j] += zb[i] * p[i * width + j];
        }
      }, partial, zp.data());
      parallel(n_col, 3.0 * k, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          for (std::size_t j = 0; j < width; ++j) {
            ap[i * width + j] += lambda * p[i * width + j] - n_rows * zp[j] * zb[i];
          }
        }
      });
    };
    kitchen::preconditioned_cg_columns(apply, b_rows.data(), precondition.data(), n_col, width,
                                       tol, max_iter, x_rows.data(),
                                       [] { Rcpp::checkUserInterrupt(); }, reports.data(),
                                       parallel);
  };
  if (k == 1) solve(kitchen::one_column); else solve(k);
  if (!ok) {
    return Rf_mkString("{.arg cols} must hold column numbers from 0 to the number of columns - 1, or -1.");
  }
  Rcpp::NumericMatrix x(kitchen_glue::alloc_result_matrix(n_col, k));
  Rcpp::IntegerVector iterations(k);
  Rcpp::NumericVector residual(k);
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < n_col; ++i) x(i, j) = x_rows[i * k + j];
    iterations[j] = reports[j].iterations;
    residual[j] = reports[j].residual;
  }
  return Rcpp::List::create(Rcpp::Named("x") = x, Rcpp::Named("iterations") = iterations,
                            Rcpp::Named("residual") = residual);
}
