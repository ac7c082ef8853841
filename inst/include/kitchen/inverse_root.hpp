// The pseudo-inverse square root of a symmetric positive semi-definite
// matrix K (a Nystroem map's K_CC^(-1/2)): with K = U diag(l) U',
//   K^(+1/2) = U_r diag(1 / sqrt(l_r)) U_r'
// over the eigenvalues above the rounding level n eps max(l) (below it an
// eigenvalue is noise and its eigenvector arbitrary). The glue
// (src/inverse_root.cpp) reduces K to tridiagonal form on kitchen's threaded
// reduction (tridiagonal.hpp), finds the kept eigenpairs of T by LAPACK's
// MRRR (dstemr: O(n r) work for r of them, against the O(n^3) QR sweeps of
// a full eigensolver), maps them back with the reduction's reflectors and
// forms the product on kitchen's SIMD kernels. These are the pieces that
// need no LAPACK nor threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace kitchen {

// Columns of eigenvectors mapped back together: each pass over the
// reflectors (n^2 / 2 doubles, 400 MB at n = 10,000) serves this many
// columns, which stay in L2 (8 x 10,000 doubles = 640 KB).
constexpr std::size_t inverse_root_group = 8;

// Eigenvalues above this are kept (the rule of R's former eigen() path).
inline double inverse_root_cutoff(std::size_t n, double largest) {
  return static_cast<double>(n) * std::numeric_limits<double>::epsilon() * std::max(largest, 0.0);
}

// Columns [c0, c1) of the n x r eigenvectors u scaled by l^(-1/4), and
// written transposed into ut (r x n): the two operands of S S' =
// U diag(l^(-1/2)) U' (a symmetric product, so the result is symmetric to
// the last bit). The copy goes row by row over the range, so each row's
// write is contiguous.
inline void inverse_root_scale(double* u, std::size_t n, const double* l, std::size_t r,
                               std::size_t c0, std::size_t c1, double* ut) {
  for (std::size_t c = c0; c < c1; ++c) {
    const double s = 1.0 / std::sqrt(std::sqrt(l[c]));
    double* col = u + c * n;
    for (std::size_t i = 0; i < n; ++i) col[i] *= s;
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t c = c0; c < c1; ++c) ut[c + i * r] = u[i + c * n];
  }
}

}  // namespace kitchen
