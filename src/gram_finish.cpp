// Glue for finishing Z'Z (gram_finish.hpp): a fresh matrix filled by blocks
// of columns over threads, with interrupt checks between chunks (the
// first touch of a 1 GB result alone takes seconds).
#include <Rcpp.h>

#include <cstddef>

#include "kitchen/gram_finish.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"

// The matrix with its upper triangle copied to the lower one (a new matrix).
// One thread by default: the copy is bound by memory, not arithmetic.
// [[Rcpp::export(rng = false)]]
SEXP gram_symmetrize_cpp(Rcpp::NumericMatrix gram, int n_threads = 1) {
  const std::size_t dim = gram.nrow();
  if (gram.ncol() != gram.nrow()) Rcpp::stop("gram must be square.");
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(dim, dim));
  const double* g = gram.begin();
  double* res = REAL(out);
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim),
                                    3.0 * dim * kitchen::gram_finish_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) kitchen::gram_symmetric_copy(g, dim, u, res);
  });
  return out;
}

// The same, in place, for a matrix nothing else holds (a fit's running
// sums): no second 1.15 GB matrix at D = 12,000, and no first touch.
// [[Rcpp::export(rng = false)]]
SEXP gram_symmetrize_in_place_cpp(Rcpp::NumericMatrix gram, int n_threads = 1) {
  const std::size_t dim = gram.nrow();
  if (gram.ncol() != gram.nrow()) Rcpp::stop("gram must be square.");
  double* g = gram.begin();
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim),
                                    2.0 * dim * kitchen::gram_finish_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) kitchen::gram_mirror_upper(g, dim, u);
  });
  return R_NilValue;
}

void gram_fill_interruptible(SEXP gram, SEXP out, std::size_t dim, int n_threads);

// A copy of gram (or, for NULL, a dim x dim matrix of zeros), filled by
// blocks of columns between interrupt checks: R's clone or matrix(0, D, D)
// of a 1 GB matrix holds the main thread for seconds (first touch).
SEXP gram_copy_interruptible(SEXP gram, std::size_t dim, int n_threads) {
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(dim, dim));
  gram_fill_interruptible(gram, out, dim, n_threads);
  return out;
}

// The same into an existing dim x dim matrix `out` (a spare one the fit's
// block loop reuses: fit_blocks.cpp).
void gram_fill_interruptible(SEXP gram, SEXP out, std::size_t dim, int n_threads) {
  const double* g = Rf_isNull(gram) ? nullptr : REAL(gram);
  double* res = REAL(out);
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim),
                                    2.0 * dim * kitchen::gram_finish_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) kitchen::gram_copy(g, dim, u, res);
  });
}

// gram - n * tcrossprod(zbar) for a symmetric gram (a new matrix).
// [[Rcpp::export(rng = false)]]
SEXP gram_center_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericVector zbar, double n,
                     int n_threads) {
  const std::size_t dim = gram.nrow();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(zbar.size()) != dim) {
    Rcpp::stop("gram must be square, with one zbar per column.");
  }
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(dim, dim));
  const double* g = gram.begin();
  const double* z = zbar.begin();
  double* res = REAL(out);
  kitchen_glue::parallel_for_chunks(kitchen::gram_finish_units(dim),
                                    3.0 * dim * kitchen::gram_finish_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) kitchen::gram_centered(g, z, n, dim, u, res);
  });
  return out;
}
