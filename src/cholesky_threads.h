// The blocked Cholesky factorisations over threads, with an interrupt check
// after each block: the lower one on Eigen (blocked_cholesky.hpp) for the
// fixed-lambda ridge solve (fold_algebra.cpp) and FALKON's preconditioner
// (falkon.cpp), the upper one on kitchen's Gram kernels
// (cholesky_simd.hpp) for the logistic preconditioner and the class
// calibration's fold solves (centred_factor.cpp).
#pragma once

#include <Rcpp.h>

#include <atomic>
#include <cstddef>
#include <vector>

#include "kitchen/blocked_cholesky.hpp"
#include "kitchen/cholesky_simd.hpp"
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

// The upper Cholesky factor R (A = R'R) of a (dim x dim, column-major), in
// place, on the Gram kernels of `level` (avx2 or avx512, resolved against
// the CPU): only the upper triangle is read; below the diagonal, entries
// within kitchen::gram_tile_reach of it change (the caller clears them).
// False when a is not positive definite to double precision.
inline bool cholesky_upper_in_place(double* a, std::size_t dim, int n_threads,
                                    kitchen::simd_level level) {
  const std::size_t width = kitchen::gram_strip_width(level);
  const std::size_t packed =
      kitchen::upper_cholesky_block * kitchen::gram_n_strips(dim, level) * width;
  std::vector<double> buffers(2 * (packed + 8));  // made here: workers do not allocate
  double* left = kitchen::align64(buffers.data());
  double* right = kitchen::align64(buffers.data() + packed + 8);
  std::atomic<bool> failed(false);
  for (std::size_t k = 0; k < dim; k += kitchen::upper_cholesky_block) {
    if (!kitchen::upper_cholesky_diagonal_block(a, dim, k)) return false;
    const std::size_t b = kitchen::upper_cholesky_width(dim, k);
    const std::size_t m = kitchen::upper_cholesky_trailing(dim, k);
    if (m == 0) break;
    // Units of 128 columns: each call of Eigen's triangular solve packs R11.
    const std::size_t unit = kitchen::gram_panel_width;
    parallel_for_chunks((m + unit - 1) / unit, static_cast<double>(b) * b * unit, n_threads,
                        [&](std::size_t begin, std::size_t end) {
      try {
        kitchen::upper_cholesky_panel_columns(a, dim, k, begin * unit, std::min(m, end * unit));
      } catch (...) {
        failed.store(true);
      }
    });
    if (failed.load()) Rcpp::stop("Not enough memory for the Cholesky factorisation.");
    parallel_for_chunks(kitchen::gram_n_strips(m, level), 4.0 * b * width, n_threads,
                        [&](std::size_t begin, std::size_t end) {
      kitchen::upper_cholesky_pack(a, dim, k, begin, end, level, left, right);
    });
    const std::size_t n_panels = kitchen::gram_n_panels(m);
    const double pair_cost = static_cast<double>(b) * (m + kitchen::gram_panel_width) *
                             kitchen::gram_panel_width;
    parallel_for_chunks((n_panels + 1) / 2, pair_cost, n_threads,
                        [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) {
        kitchen::upper_cholesky_trailing_pair(left, right, a, dim, k, u, level);
      }
    });
    Rcpp::checkUserInterrupt();
  }
  return true;
}

}  // namespace kitchen_glue
