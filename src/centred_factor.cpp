// Cholesky factors of centred Gram matrices (centred_factor.h): made in a
// fresh matrix by blocks of columns and factored by the blocked Cholesky
// over threads, with interrupt checks between blocks. In R, the centring,
// scaling and chol() of the D x D matrix could not be stopped: chol() alone
// held an interrupt for 33 s at D = 4096 on the reference BLAS, and takes
// minutes at D = 12,000.
#include <Rcpp.h>

#include <algorithm>
#include <cstddef>
#include <memory>

#include "cholesky_threads.h"
#include "centred_factor.h"
#include "kitchen/blocked_cholesky.hpp"
#include "kitchen/gram_finish.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"
#include "simd_name.h"

bool kitchen_glue::centred_cholesky(const double* g, const double* minus, bool upper,
                                    const double* zbar, double n, double scale, double shift,
                                    std::size_t dim, int n_threads, double* a) {
  const std::size_t block = kitchen::gram_finish_block;
  // The lower triangle only: the factorisation reads nothing else.
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim), 2.0 * dim * block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin * block; j < std::min(dim, end * block); ++j) {
      double* aj = a + j * dim;
      for (std::size_t i = j; i < dim; ++i) {
        double gij = upper ? g[j + i * dim] : g[i + j * dim];
        if (minus) gij -= minus[i + j * dim];
        aj[i] = scale * (gij - n * (zbar[i] * zbar[j]));
      }
      aj[j] += shift;
    }
  });
  return kitchen_glue::cholesky_in_place(a, dim, n_threads);
}

namespace {

// The upper triangle of scale * ((g - minus) - n zbar zbar') + shift I,
// each entry as centred_cholesky() makes it (g's lower triangle read, or
// its upper one when `upper`; minus's lower one), with zeros below the
// diagonal. Each block of columns is made row by row: the lower triangles
// are then read along their rows, a few cache lines serving the whole
// block, where column by column read them one column apart per entry (an
// eighth of a fold solve's time at D = 4096).
void centred_upper(const double* g, const double* minus, bool upper, const double* zbar, double n,
                   double scale, double shift, std::size_t dim, int n_threads, double* a) {
  const std::size_t block = kitchen::gram_finish_block;
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim), 2.0 * dim * block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t unit = begin; unit < end; ++unit) {
      const std::size_t j0 = unit * block, j1 = std::min(dim, j0 + block);
      for (std::size_t i = 0; i < j1; ++i) {
        for (std::size_t j = std::max(i, j0); j < j1; ++j) {
          double gij = upper ? g[i + j * dim] : g[j + i * dim];
          if (minus) gij -= minus[j + i * dim];
          a[i + j * dim] = scale * (gij - n * (zbar[j] * zbar[i]));
        }
      }
      for (std::size_t j = j0; j < j1; ++j) {
        a[j + j * dim] += shift;
        std::fill(a + j * dim + j + 1, a + (j + 1) * dim, 0.0);
      }
    }
  });
}

}  // namespace

bool kitchen_glue::centred_upper_cholesky(const double* g, const double* minus, bool upper,
                                          const double* zbar, double n, double scale,
                                          double shift, std::size_t dim, int n_threads,
                                          kitchen::simd_level level, double* a) {
  centred_upper(g, minus, upper, zbar, n, scale, shift, dim, n_threads, a);
  return kitchen_glue::cholesky_upper_in_place(a, dim, n_threads, level);
}

bool kitchen_glue::logistic_factor(const double* g, const double* minus, bool upper,
                                   const double* zbar, double n, double curvature, double lambda,
                                   std::size_t dim, int n_threads, kitchen::simd_level level,
                                   double* a) {
  const std::size_t block = kitchen::gram_finish_block;
  if (level != kitchen::simd_level::scalar) {
    if (!centred_upper_cholesky(g, minus, upper, zbar, n, curvature, 2 * lambda, dim, n_threads,
                                level, a)) {
      return false;
    }
    const double clear_cost = 1.0 * block * kitchen::gram_tile_reach;
    kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim), clear_cost, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      kitchen::upper_cholesky_clear_below(a, dim, begin * block, std::min(dim, end * block));
    });
    return true;
  }
  if (!centred_cholesky(g, minus, upper, zbar, n, curvature, 2 * lambda, dim, n_threads, a)) {
    return false;
  }
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim), 2.0 * dim * block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::cholesky_upper_columns(a, dim, begin * block, std::min(dim, end * block));
  });
  return true;
}

const double* kitchen_glue::fold_gram_or_null(const Rcpp::Nullable<Rcpp::NumericMatrix>& fold_gram,
                                             std::size_t dim) {
  if (fold_gram.isNull()) return nullptr;
  const Rcpp::NumericMatrix m(fold_gram.get());
  if (static_cast<std::size_t>(m.nrow()) != dim || static_cast<std::size_t>(m.ncol()) != dim) {
    Rcpp::stop("fold_gram must be of gram's size.");
  }
  return m.begin();
}

// chol()'s upper factor of the bound (zeros below the diagonal), or NULL
// when it is not positive definite to double precision (the caller names
// lambda): kitchen_glue::logistic_factor() on the lower triangle of gram
// less fold_gram (NULL for none).
// [[Rcpp::export(rng = false)]]
SEXP logistic_bound_factor_cpp(Rcpp::NumericMatrix gram,
                               Rcpp::Nullable<Rcpp::NumericMatrix> fold_gram,
                               Rcpp::NumericVector zbar, double n, double curvature,
                               double lambda, int n_threads, SEXP simd) {
  const std::size_t dim = gram.nrow();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(zbar.size()) != dim) {
    Rcpp::stop("gram must be square, with one zbar per column.");
  }
  const double* minus = kitchen_glue::fold_gram_or_null(fold_gram, dim);
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(dim, dim));
  if (!kitchen_glue::logistic_factor(gram.begin(), minus, false, zbar.begin(), n, curvature,
                                     lambda, dim, n_threads, kitchen_glue::simd_from_name(simd),
                                     REAL(out))) {
    return R_NilValue;
  }
  return out;
}

// The ridge coefficients of a least-squares CV fold at one lambda,
// ((gram - fold_gram) - n zbar zbar' + lambda I)^-1 rhs, rhs being the fold's
// centred training Z'y (D x k); NULL when the matrix is not positive
// definite to double precision (the caller falls back to the full solve,
// which names lambda). The factor lives in a buffer freed on return: R's
// ridge solve of a fold made five D x D matrices for its collector (the
// training statistics, their centring, the shifted copy, chol() and its
// transpose) and ran chol() on R's BLAS. On the AVX2 / AVX-512 levels the
// matrix is factored on the Gram kernels (centred_upper_cholesky()): one
// fold at D = 4096 with 26 responses (AVX2, 2 threads) 2.37 s on Eigen's
// products, 1.36 s on the Gram kernels (bench/results/calibration.md).
// `scratch`: NULL, or a D x D double matrix of the caller's to hold the
// factor instead (overwritten; R/calibration.R passes one to every fold, so
// that only the first fold's factor pays the first touch of its pages).
// [[Rcpp::export(rng = false)]]
SEXP ridge_fold_solve_cpp(Rcpp::NumericMatrix gram, Rcpp::Nullable<Rcpp::NumericMatrix> fold_gram,
                          Rcpp::NumericVector zbar, double n, Rcpp::NumericMatrix rhs,
                          double lambda, int n_threads, SEXP simd, SEXP scratch = R_NilValue) {
  const std::size_t dim = gram.nrow();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(zbar.size()) != dim ||
      static_cast<std::size_t>(rhs.nrow()) != dim) {
    Rcpp::stop("gram must be square, with one zbar and rhs row per column.");
  }
  const double* minus = kitchen_glue::fold_gram_or_null(fold_gram, dim);
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  std::unique_ptr<double[]> fresh;
  double* factor = nullptr;
  if (scratch == R_NilValue) {
    fresh.reset(new double[dim * dim]);
    factor = fresh.get();
  } else {
    kitchen_glue::check_result_buffer(
        scratch, "scratch", {gram, rhs, fold_gram.isNotNull() ? fold_gram.get() : R_NilValue},
        dim, dim);
    factor = REAL(scratch);
  }
  Rcpp::NumericMatrix x = Rcpp::clone(rhs);
  if (level != kitchen::simd_level::scalar) {
    // the upper triangle is read; entries just below it are left as scratch
    if (!kitchen_glue::centred_upper_cholesky(gram.begin(), minus, false, zbar.begin(), n, 1.0,
                                              lambda, dim, n_threads, level, factor)) {
      return R_NilValue;
    }
    kitchen::upper_cholesky_solve(factor, dim, x.begin(), rhs.ncol());
    return x;
  }
  // the lower triangle only is written and read
  if (!kitchen_glue::centred_cholesky(gram.begin(), minus, false, zbar.begin(), n, 1.0, lambda,
                                      dim, n_threads, factor)) {
    return R_NilValue;
  }
  kitchen::cholesky_solve(factor, dim, x.begin(), rhs.ncol());
  return x;
}
