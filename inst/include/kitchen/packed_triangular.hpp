// An upper triangular Cholesky factor R (R'R = M) held in single precision,
// its columns' upper parts packed one after the other, and the solve
// M^-1 b = R^-1 R^-T b for a few right-hand sides. The logistic solver
// applies its preconditioner's inverse once per step (logistic_bound.hpp);
// at D = 2048 the double factor is 32 MB, read twice per step from memory
// by Eigen's triangular solves (about a tenth of a 7-class fit's time).
// Packed in single precision it is 8 MB; every product and sum is still in
// double, so this is the solve with the rounded factor (to double
// rounding), itself the factor of a symmetric positive definite matrix near
// M: what a preconditioner needs to be.
#pragma once

#include <cstddef>
#include <vector>

#include "simd.hpp"
#include "thin_products.hpp"  // the widening load, the lane sum and the unroll pragma

namespace kitchen {

struct packed_upper_factor {
  std::size_t dim = 0;
  std::vector<float> entries;  // column j: R(0 .. j, j) from offset j (j + 1) / 2

  packed_upper_factor() = default;
  // From the upper triangle of a dim x dim column-major factor.
  packed_upper_factor(const double* upper, std::size_t n) : dim(n), entries(n * (n + 1) / 2) {
    float* out = entries.data();
    for (std::size_t j = 0; j < n; ++j) {
      const double* column = upper + j * n;
      for (std::size_t i = 0; i <= j; ++i) *out++ = static_cast<float>(column[i]);
    }
  }
  const float* column(std::size_t j) const { return entries.data() + j * (j + 1) / 2; }
};

namespace detail {

// R' y = b (forward) then R x = y (backward), in place on b (dim x m,
// column-major), one right-hand side at a time, in double.
inline void packed_solve_scalar(const packed_upper_factor& r, double* b, std::size_t m) {
  const std::size_t n = r.dim;
  for (std::size_t c = 0; c < m; ++c) {
    double* y = b + c * n;
    for (std::size_t j = 0; j < n; ++j) {
      const float* col = r.column(j);
      double s = y[j];
      for (std::size_t i = 0; i < j; ++i) s -= static_cast<double>(col[i]) * y[i];
      y[j] = s / static_cast<double>(col[j]);
    }
    for (std::size_t j = n; j-- > 0;) {
      const float* col = r.column(j);
      const double x = y[j] / static_cast<double>(col[j]);
      y[j] = x;
      for (std::size_t i = 0; i < j; ++i) y[i] -= static_cast<double>(col[i]) * x;
    }
  }
}

#if KITCHEN_X86_SIMD

// The same solves for up to 4 right-hand sides at once (MC of them, from
// column c0 of b), each column of the factor read once per group.
template <int MC>
KITCHEN_TARGET_THIN_AVX2 inline void packed_solve_avx2(const packed_upper_factor& r, double* b,
                                                       std::size_t c0) {
  const std::size_t n = r.dim;
  double* y[MC];
  KITCHEN_UNROLL
  for (int c = 0; c < MC; ++c) y[c] = b + (c0 + c) * n;
  for (std::size_t j = 0; j < n; ++j) {  // forward: y_j = (b_j - R(0:j, j)' y(0:j)) / R(j, j)
    const float* col = r.column(j);
    __m256d acc[MC];
    KITCHEN_UNROLL
    for (int c = 0; c < MC; ++c) acc[c] = _mm256_setzero_pd();
    const std::size_t body = j / 4 * 4;
    for (std::size_t i = 0; i < body; i += 4) {
      const __m256d rv = thin_load4(col + i);
      KITCHEN_UNROLL
      for (int c = 0; c < MC; ++c) acc[c] = _mm256_fmadd_pd(rv, _mm256_loadu_pd(y[c] + i), acc[c]);
    }
    const double pivot = static_cast<double>(col[j]);
    KITCHEN_UNROLL
    for (int c = 0; c < MC; ++c) {
      double s = thin_sum4(acc[c]);
      for (std::size_t i = body; i < j; ++i) s += static_cast<double>(col[i]) * y[c][i];
      y[c][j] = (y[c][j] - s) / pivot;
    }
  }
  for (std::size_t j = n; j-- > 0;) {  // backward: x_j = y_j / R(j, j); y(0:j) -= R(0:j, j) x_j
    const float* col = r.column(j);
    const double pivot = static_cast<double>(col[j]);
    __m256d xv[MC];
    double x[MC];
    KITCHEN_UNROLL
    for (int c = 0; c < MC; ++c) {
      x[c] = y[c][j] / pivot;
      y[c][j] = x[c];
      xv[c] = _mm256_set1_pd(x[c]);
    }
    const std::size_t body = j / 4 * 4;
    for (std::size_t i = 0; i < body; i += 4) {
      const __m256d rv = thin_load4(col + i);
      KITCHEN_UNROLL
      for (int c = 0; c < MC; ++c) {
        _mm256_storeu_pd(y[c] + i, _mm256_fnmadd_pd(rv, xv[c], _mm256_loadu_pd(y[c] + i)));
      }
    }
    for (std::size_t i = body; i < j; ++i) {
      KITCHEN_UNROLL
      for (int c = 0; c < MC; ++c) y[c][i] -= static_cast<double>(col[i]) * x[c];
    }
  }
}

#endif  // KITCHEN_X86_SIMD

}  // namespace detail

// b := M^-1 b = R^-1 R^-T b (b: r.dim x m, column-major), on `level`'s kernels.
inline void packed_cholesky_solve(const packed_upper_factor& r, double* b, std::size_t m,
                                  simd_level level) {
#if KITCHEN_X86_SIMD
  if (level != simd_level::scalar) {
    std::size_t c0 = 0;
    for (; c0 + 4 <= m; c0 += 4) detail::packed_solve_avx2<4>(r, b, c0);
    if (m - c0 == 3) detail::packed_solve_avx2<3>(r, b, c0);
    if (m - c0 == 2) detail::packed_solve_avx2<2>(r, b, c0);
    if (m - c0 == 1) detail::packed_solve_avx2<1>(r, b, c0);
    return;
  }
#endif
  (void)level;
  detail::packed_solve_scalar(r, b, m);
}

}  // namespace kitchen
