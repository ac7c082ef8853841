// Cholesky factorisation A = L L' of a symmetric positive definite matrix,
// in place, by blocks of columns (right-looking), so that the caller can
// spread each step's work over threads and check for interrupts between
// steps: LAPACK's dpotrf is one call of minutes at D = 12,000 on the
// reference BLAS.
//
// Step k: factor the diagonal block A11 (cholesky_diagonal_block), solve
// the rows below it, A21 := A21 L11^-T (cholesky_panel_rows, independent
// row tiles), then subtract A21 A21' from the trailing lower triangle
// (cholesky_trailing_tile, independent column tiles). Only the lower
// triangle is read and written (the diagonal tiles also write a few entries
// above the diagonal, which nothing reads).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "eigen.hpp"

namespace kitchen {

constexpr std::size_t cholesky_block = 256;  // columns per step and per tile

namespace detail {
using CholeskyMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
using CholeskyMap = Eigen::Map<CholeskyMatrix, 0, Eigen::OuterStride<>>;

// The rows x cols block of the column-major dim x dim matrix a at (i, j).
inline CholeskyMap cholesky_view(double* a, std::size_t dim, std::size_t i, std::size_t j,
                                 std::size_t rows, std::size_t cols) {
  return CholeskyMap(a + i + j * dim, static_cast<Eigen::Index>(rows),
                     static_cast<Eigen::Index>(cols), Eigen::OuterStride<>(static_cast<Eigen::Index>(dim)));
}
}  // namespace detail

inline std::size_t cholesky_width(std::size_t dim, std::size_t k) {
  return std::min(cholesky_block, dim - k);
}

// Factors the b x b diagonal block at (k, k) in place, its lower (L L') or
// upper (R'R) triangle as UpLo says. False when the matrix is not positive
// definite to double precision (a pivot <= 0 or not finite).
template <int UpLo>
inline bool cholesky_factor_block(double* a, std::size_t dim, std::size_t k, std::size_t b) {
  detail::CholeskyMap block = detail::cholesky_view(a, dim, k, k, b, b);
  Eigen::Ref<detail::CholeskyMatrix, 0, Eigen::OuterStride<>> ref(block);
  Eigen::LLT<Eigen::Ref<detail::CholeskyMatrix, 0, Eigen::OuterStride<>>, UpLo> llt(ref);
  if (llt.info() != Eigen::Success) return false;
  for (std::size_t j = 0; j < b; ++j) {
    const double pivot = a[(k + j) + (k + j) * dim];
    if (!(pivot > 0) || !std::isfinite(pivot)) return false;
  }
  return true;
}

// Factors the diagonal block of step k in place (lower).
inline bool cholesky_diagonal_block(double* a, std::size_t dim, std::size_t k) {
  return cholesky_factor_block<Eigen::Lower>(a, dim, k, cholesky_width(dim, k));
}

// Rows [begin, end) of those below the diagonal block of step k (counted
// from k + width): A21 := A21 L11^-T.
inline void cholesky_panel_rows(double* a, std::size_t dim, std::size_t k, std::size_t begin,
                                std::size_t end) {
  const std::size_t b = cholesky_width(dim, k);
  const detail::CholeskyMap l11 = detail::cholesky_view(a, dim, k, k, b, b);
  detail::CholeskyMap rows = detail::cholesky_view(a, dim, k + b + begin, k, end - begin, b);
  l11.triangularView<Eigen::Lower>().transpose().solveInPlace<Eigen::OnTheRight>(rows);
}

// Trailing tiles of step k: columns j0 .. j0 + width of the matrix right of
// the panel, from their diagonal down. t indexes the tiles, 0 first.
inline std::size_t cholesky_trailing_tiles(std::size_t dim, std::size_t k) {
  const std::size_t rest = dim - k - cholesky_width(dim, k);
  return (rest + cholesky_block - 1) / cholesky_block;
}

inline void cholesky_trailing_tile(double* a, std::size_t dim, std::size_t k, std::size_t t) {
  const std::size_t b = cholesky_width(dim, k);
  const std::size_t j0 = k + b + t * cholesky_block;
  const std::size_t width = std::min(cholesky_block, dim - j0);
  const detail::CholeskyMap below = detail::cholesky_view(a, dim, j0, k, dim - j0, b);
  const detail::CholeskyMap across = detail::cholesky_view(a, dim, j0, k, width, b);
  detail::CholeskyMap tile = detail::cholesky_view(a, dim, j0, j0, dim - j0, width);
  tile.noalias() -= below * across.transpose();
}

// Solves L L' x = rhs in place (rhs: dim x m, column-major) with the lower
// factor left in a.
inline void cholesky_solve(const double* a, std::size_t dim, double* rhs, std::size_t m) {
  using Map = Eigen::Map<const detail::CholeskyMatrix>;
  const Map factor(a, static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(dim));
  Eigen::Map<detail::CholeskyMatrix> x(rhs, static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(m));
  factor.triangularView<Eigen::Lower>().solveInPlace(x);
  factor.triangularView<Eigen::Lower>().transpose().solveInPlace(x);
}

// Solves R'R x = rhs in place (rhs: dim x m, column-major) with the upper
// factor R in a's upper triangle (the rest of a is not read).
inline void upper_cholesky_solve(const double* a, std::size_t dim, double* rhs, std::size_t m) {
  using Map = Eigen::Map<const detail::CholeskyMatrix>;
  const Map factor(a, static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(dim));
  Eigen::Map<detail::CholeskyMatrix> x(rhs, static_cast<Eigen::Index>(dim), static_cast<Eigen::Index>(m));
  factor.triangularView<Eigen::Upper>().transpose().solveInPlace(x);
  factor.triangularView<Eigen::Upper>().solveInPlace(x);
}

// Columns [j0, j1) of a factored matrix turned into the layout of R's
// chol(): the upper factor R = L' (L's entries below the diagonal copied
// above it) with zeros below the diagonal. Units of columns can run on
// threads: each reads and zeroes only its own columns below the diagonal
// and writes only its own rows above it.
inline void cholesky_upper_columns(double* a, std::size_t dim, std::size_t j0, std::size_t j1) {
  for (std::size_t j = j0; j < j1; ++j) {
    for (std::size_t i = j + 1; i < dim; ++i) {
      a[j + i * dim] = a[i + j * dim];
      a[i + j * dim] = 0;
    }
  }
}

}  // namespace kitchen
