// Nystroem features (Williams and Seeger, 2001) for a block of rows.
//
// With C the M centers and N = K_CC^(-1/2) (a pseudo-inverse square root,
// computed by the caller), the features of a row x are
//   z(x) = k(x, C) N        (M features),
// so that z(x)'z(y) = k(x, C) K_CC^+ k(C, y), the kernel projected onto the
// span of the centers. Inputs are rescaled first: (x - center) / divisor,
// with divisor the column scale times the column's bandwidth, so the kernel
// is evaluated at bandwidth 1 (centers are stored in the same units).
#pragma once

#include <algorithm>
#include <cstddef>

#include "eigen.hpp"
#include "kernel_matrix.hpp"

namespace kitchen {

// Rows per block: the block's kernel values (rows x M) are computed, then
// multiplied by N while still in cache-friendly memory. A multiple of the
// SIMD product's 192-row units, fixed so results do not depend on threads.
constexpr std::size_t nystrom_block_rows = 768;

// out (rows x d, column-major) = (x[r0 + i, j] - center[j]) / divisor[j]
// for x column-major with stride ld_x.
inline void nystrom_rescale_rows(const double* x, std::size_t ld_x, std::size_t r0,
                                 std::size_t rows, std::size_t d, const double* center,
                                 const double* divisor, double* out) {
  for (std::size_t j = 0; j < d; ++j) {
    const double* col = x + j * ld_x + r0;
    double* dst = out + j * rows;
    const double c = center[j], s = divisor[j];
    for (std::size_t i = 0; i < rows; ++i) dst[i] = (col[i] - c) / s;
  }
}

// out[r0 + i, j] = sum_k kc[i, k] n[k, j] for the block's rows i < rows and
// columns j in [j0, j1), kc rows x M column-major, n M x M, out stride
// ld_out (the Eigen path, when SIMD products are off).
inline void nystrom_product_columns(const double* kc, std::size_t rows, std::size_t m,
                                    const double* n, std::size_t j0, std::size_t j1,
                                    double* out, std::size_t ld_out) {
  using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  Eigen::Map<const matrix> k(kc, rows, m);
  Eigen::Map<const matrix> normal(n, m, m);
  Eigen::Map<matrix, 0, Eigen::OuterStride<>> result(out, rows, m, Eigen::OuterStride<>(ld_out));
  result.middleCols(j0, j1 - j0).noalias() = k * normal.middleCols(j0, j1 - j0);
}

}  // namespace kitchen
