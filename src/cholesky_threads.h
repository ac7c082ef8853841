// The blocked Cholesky factorisation (blocked_cholesky.hpp) over threads,
// with an interrupt check after each block column: for the fixed-lambda
// ridge solve (fold_algebra.cpp) and FALKON's preconditioner (falkon.cpp).
#pragma once

#include <Rcpp.h>

#include <atomic>
#include <cstddef>

#include "kitchen/blocked_cholesky.hpp"
#include "parallel_chunks.h"

namespace kitchen_glue {

// The lower Cholesky factor of a (dim x dim, column-major), in place; false
// when a is not positive definite to double precision. Eigen may allocate
// (and throw) inside a worker: that is caught there and reported here.
inline bool cholesky_in_place(double* a, std::size_t dim, int n_threads) {
  std::atomic<bool> failed(false);
  for (std::size_t k = 0; k < dim; k += kitchen::cholesky_block) {
    if (!kitchen::cholesky_diagonal_block(a, dim, k)) return false;
    const std::size_t b = kitchen::cholesky_width(dim, k);
    const std::size_t below = dim - k - b;
    parallel_for_chunks(below, static_cast<double>(b) * b, n_threads,
                        [&](std::size_t begin, std::size_t end) {
      try {
        kitchen::cholesky_panel_rows(a, dim, k, begin, end);
      } catch (...) {
        failed.store(true);
      }
    });
    const double tile_cost = 2.0 * below * b * kitchen::cholesky_block;
    parallel_for_chunks(kitchen::cholesky_trailing_tiles(dim, k), tile_cost, n_threads,
                        [&](std::size_t begin, std::size_t end) {
      try {
        for (std::size_t t = begin; t < end; ++t) kitchen::cholesky_trailing_tile(a, dim, k, t);
      } catch (...) {
        failed.store(true);
      }
    });
    if (failed.load()) Rcpp::stop("Not enough memory for the Cholesky factorisation.");
    Rcpp::checkUserInterrupt();
  }
  return true;
}

}  // namespace kitchen_glue
