// Cholesky factorisation A = R'R (R upper) in place, by blocks of rows
// (right-looking), with the trailing updates on the Gram matrix's AVX-512 /
// AVX2 micro-kernels (gram_simd.hpp): step k's trailing update
// A22 -= R12'R12 is a Gram update of the b x m panel R12 (the rows of the
// diagonal block, right of it), written to the upper triangle as the Gram
// kernels write it. The logistic fit factors its preconditioner once per CV
// fold and lambda: at D = 2048 (AVX2, 2 threads) 0.083 s a factor, against
// 0.23 s for the lower factorisation on Eigen's products
// (blocked_cholesky.hpp, SSE2 under R's portable flags), most of each CV
// solve's fixed cost.
//
// Step k: factor the diagonal block A11 = R11'R11 (Eigen, b x b), solve the
// panel A12 := R11^-T A12 (independent column ranges), then pack R12 in
// strips twice, as it is and negated, and add (-R12)'R12 to the trailing
// upper triangle (independent pairs of column panels). Only the upper
// triangle is read; the diagonal tiles of the Gram kernels also write up to
// gram_tile_reach entries below the diagonal, which the caller clears
// (upper_cholesky_clear_below()).
#pragma once

#include <algorithm>
#include <cstddef>

#include "blocked_cholesky.hpp"
#include "eigen.hpp"
#include "gram.hpp"

namespace kitchen {

// Rows per step, the Gram kernels' kc: at D = 2048 (AVX2, 2 threads) a
// factor took 0.083 s, against 0.128 s with 256 rows and 0.092 s with 64.
constexpr std::size_t upper_cholesky_block = 128;
static_assert(upper_cholesky_block <= gram_block_rows, "a step's panel is one packed block");

// How far below the diagonal the Gram kernels' diagonal tiles write: less
// than a tile's rows plus its columns on every level.
constexpr std::size_t gram_tile_reach = 64;
#if KITCHEN_X86_SIMD
static_assert(detail::gram_avx512::mr + detail::gram_avx512::nr <= gram_tile_reach &&
                  detail::gram_avx2::mr + detail::gram_avx2::nr <= gram_tile_reach,
              "the diagonal tiles reach below the cleared band");
#endif

inline std::size_t upper_cholesky_width(std::size_t dim, std::size_t k) {
  return std::min(upper_cholesky_block, dim - k);
}

// Factors the diagonal block of step k in place (upper). False when the
// matrix is not positive definite to double precision.
inline bool upper_cholesky_diagonal_block(double* a, std::size_t dim, std::size_t k) {
  return cholesky_factor_block<Eigen::Upper>(a, dim, k, upper_cholesky_width(dim, k));
}

// Columns [begin, end) of those right of the diagonal block of step k
// (counted from k + width): A12 := R11^-T A12.
inline void upper_cholesky_panel_columns(double* a, std::size_t dim, std::size_t k,
                                         std::size_t begin, std::size_t end) {
  const std::size_t b = upper_cholesky_width(dim, k);
  const detail::CholeskyMap r11 = detail::cholesky_view(a, dim, k, k, b, b);
  detail::CholeskyMap columns = detail::cholesky_view(a, dim, k, k + b + begin, b, end - begin);
  r11.triangularView<Eigen::Upper>().transpose().solveInPlace(columns);
}

// The trailing matrix's size after step k.
inline std::size_t upper_cholesky_trailing(std::size_t dim, std::size_t k) {
  return dim - k - upper_cholesky_width(dim, k);
}

// Strips [s_begin, s_end) of step k's panel R12 (b rows, trailing columns)
// packed for the Gram kernels of `level`: into `right` as they are, into
// `left` negated (exactly: the kernels' sums of negated products are the
// negated sums).
inline void upper_cholesky_pack(const double* a, std::size_t dim, std::size_t k,
                                std::size_t s_begin, std::size_t s_end, simd_level level,
                                double* left, double* right) {
  const std::size_t b = upper_cholesky_width(dim, k), m = upper_cholesky_trailing(dim, k);
  gram_pack_strips(a + (k + b) * dim, dim, k, b, m, s_begin, s_end, level, right);
  const std::size_t strip = b * gram_strip_width(level);
  for (std::size_t i = s_begin * strip; i < s_end * strip; ++i) left[i] = -right[i];
}

// The trailing update A22 -= R12'R12 of step k on panel pair u (panels u
// and n - 1 - u of the trailing matrix: units of equal cost).
inline void upper_cholesky_trailing_pair(const double* left, const double* right, double* a,
                                         std::size_t dim, std::size_t k, std::size_t u,
                                         simd_level level) {
  const std::size_t b = upper_cholesky_width(dim, k), m = upper_cholesky_trailing(dim, k);
  double* trailing = a + (k + b) + (k + b) * dim;
  const std::size_t n_panels = gram_n_panels(m);
  gram_packed_panel_pair_update(left, right, b, m, dim, u, trailing, level);
  if (n_panels - 1 - u != u) {
    gram_packed_panel_pair_update(left, right, b, m, dim, n_panels - 1 - u, trailing, level);
  }
}

// Zeroes columns [j0, j1) below the diagonal as far as the Gram kernels
// reach (the rest of the lower triangle the caller left at zero).
inline void upper_cholesky_clear_below(double* a, std::size_t dim, std::size_t j0,
                                       std::size_t j1) {
  for (std::size_t j = j0; j < j1; ++j) {
    const std::size_t end = std::min(dim, j + 1 + gram_tile_reach);
    for (std::size_t i = j + 1; i < end; ++i) a[i + j * dim] = 0;
  }
}

}  // namespace kitchen
