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

namespace {

// Every vector a solve needs beside R's: made by binned_cg_workspace_cpp()
// for a path of solves of one size, whose later solves reuse the pages
// (cg_scratch in binned_cg.hpp).
struct binned_cg_workspace {
  std::vector<double> precondition;
  kitchen::huge_page_vector<double> t, b_rows, x_rows;
  kitchen::cg_scratch scratch;
};

}  // namespace

// A workspace for binned_cg_cpp(), freed by the garbage collector or by
// binned_cg_workspace_free_cpp() (at the end of a path, not later).
// [[Rcpp::export(rng = false)]]
SEXP binned_cg_workspace_cpp() {
  return Rcpp::XPtr<binned_cg_workspace>(new binned_cg_workspace(), true);
}

// [[Rcpp::export(rng = false)]]
void binned_cg_workspace_free_cpp(SEXP workspace) {
  Rcpp::XPtr<binned_cg_workspace>(workspace).release();
}

// cols: n x n_grids column numbers (-1 for none); rows: n row weights;
// zbar, diagonal: one value per column; b, start: one column of as many
// values per right-hand side, solved together (binned_cg.hpp); value: the
// features' non-zero. Returns list(x, iterations, residual), one column or
// value per right-hand side, or a string saying what is wrong with the
// sizes or a column number. `workspace` (or NULL for one of its own) from
// binned_cg_workspace_cpp().
// [[Rcpp::export(rng = false)]]
SEXP binned_cg_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector rows, Rcpp::NumericVector zbar,
                   Rcpp::NumericVector diagonal, Rcpp::NumericMatrix b, Rcpp::NumericMatrix start,
                   double lambda, double value, double tol, int max_iter, int n_threads,
                   SEXP workspace = R_NilValue) {
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
  binned_cg_workspace own;
  binned_cg_workspace* space = &own;
  if (workspace != R_NilValue) {
    space = Rcpp::XPtr<binned_cg_workspace>(workspace).get();
    if (space == nullptr) return Rf_mkString("{.arg workspace} was freed.");
  }
  const int* c = cols.begin();
  const double* w = rows.begin();
  const double* zb = zbar.begin();
  double n_rows = 0;
  for (std::size_t i = 0; i < n; ++i) n_rows += w[i];
  kitchen_glue::chunk_runner parallel{n_threads};
  // every entry of these is written before it is read
  space->precondition.resize(n_col);
  space->t.resize(n * k);
  space->b_rows.resize(n_col * k);
  space->x_rows.resize(n_col * k);
  double* precondition = space->precondition.data();
  double* t = space->t.data();
  double* b_rows = space->b_rows.data();
  double* x_rows = space->x_rows.data();
  // R's columns interleaved for the solve, and back
  const double* b_in = b.begin();
  const double* start_in = start.begin();
  const double* diagonal_in = diagonal.begin();
  parallel(n_col, 3.0 * k, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      precondition[i] = diagonal_in[i] + lambda;
      for (std::size_t j = 0; j < k; ++j) {
        b_rows[i * k + j] = b_in[j * n_col + i];
        x_rows[i * k + j] = start_in[j * n_col + i];
      }
    }
  });
  std::vector<kitchen::cg_report> reports(k);
  std::atomic<bool> ok(true);
  // `width`: k, or 1 known when compiling (binned_cg.hpp)
  auto solve = [&](auto width) {
    std::vector<double> zp(k), partial;
    auto apply = [&](const double* p, double* ap) {
      double* tp = t;
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
    kitchen::preconditioned_cg_columns(apply, b_rows, precondition, n_col, width, tol, max_iter,
                                       x_rows, [] { Rcpp::checkUserInterrupt(); },
                                       reports.data(), parallel, space->scratch);
  };
  if (k == 1) solve(kitchen::one_column); else solve(k);
  if (!ok) {
    return Rf_mkString("{.arg cols} must hold column numbers from 0 to the number of columns - 1, or -1.");
  }
  Rcpp::NumericMatrix x(kitchen_glue::alloc_result_matrix(n_col, k));
  double* x_out = x.begin();
  parallel(n_col, 2.0 * k, [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = 0; j < k; ++j) {
      for (std::size_t i = begin; i < end; ++i) x_out[j * n_col + i] = x_rows[i * k + j];
    }
  });
  Rcpp::IntegerVector iterations(k);
  Rcpp::NumericVector residual(k);
  for (std::size_t j = 0; j < k; ++j) {
    iterations[j] = reports[j].iterations;
    residual[j] = reports[j].residual;
  }
  return Rcpp::List::create(Rcpp::Named("x") = x, Rcpp::Named("iterations") = iterations,
                            Rcpp::Named("residual") = residual);
}
