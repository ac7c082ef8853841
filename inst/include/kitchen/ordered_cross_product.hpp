// Z'B for a block of feature rows Z and a few columns B (the fit's Z'y,
// one column per response, and Z'w), with each entry summed as the
// reference BLAS's dgemm("T", "N") sums it: over the rows in order, from
// zero, one rounding for each product and one for each sum. So the fit's
// statistics are what R's crossprod() gives on that BLAS, bit for bit
// (test-pinned-results.R), on every SIMD level and for any number of
// threads, while the reference dgemm itself runs one dependent add at a
// time on one thread: with 26 classes and 1024 features it took longer
// than the block's Z'Z.
//
// The speed comes from working on many entries at once, never from
// reordering a sum: lanes hold different classes, and a tile of two
// feature columns by up to 24 classes keeps its sums in registers over
// all the rows.
#pragma once

#include <algorithm>
#include <cstddef>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>
// No "fma" in the target: the products and sums cannot be fused (and
// keep_unfused() says so again).
#define KITCHEN_TARGET_ORDERED __attribute__((target("avx2")))
#endif

namespace kitchen {

namespace detail {

// Columns i0 <= i < i1 of z against every class of bt, one entry at a time.
inline void ordered_columns_scalar(const double* z, std::size_t rows, std::size_t ld_z,
                                   const double* bt, std::size_t kp, std::size_t k,
                                   std::size_t i0, std::size_t i1, double* out,
                                   std::size_t ld_out) {
  for (std::size_t i = i0; i < i1; ++i) {
    const double* column = z + i * ld_z;
    for (std::size_t j = 0; j < k; ++j) {
      double sum = 0.0;
      for (std::size_t l = 0; l < rows; ++l) sum += unfused(column[l] * bt[l * kp + j]);
      out[i + j * ld_out] = sum;
    }
  }
}

#if KITCHEN_X86_SIMD

// One tile of RT columns by VC vectors of four classes.
template <int RT, int VC>
KITCHEN_TARGET_ORDERED void ordered_tile_avx2(const double* z, std::size_t rows,
                                              std::size_t ld_z, const double* bt,
                                              std::size_t kp, std::size_t i0, std::size_t j0,
                                              std::size_t k, double* out,
                                              std::size_t ld_out) {
  __m256d sum[RT][VC];
  for (int r = 0; r < RT; ++r) {
    for (int v = 0; v < VC; ++v) sum[r][v] = _mm256_setzero_pd();
  }
  const double* column[RT];
  for (int r = 0; r < RT; ++r) column[r] = z + (i0 + r) * ld_z;
  for (std::size_t l = 0; l < rows; ++l) {
    const double* row = bt + l * kp + j0;
    __m256d a[RT];
    for (int r = 0; r < RT; ++r) a[r] = _mm256_broadcast_sd(column[r] + l);
    for (int v = 0; v < VC; ++v) {
      const __m256d b = _mm256_loadu_pd(row + 4 * v);
      for (int r = 0; r < RT; ++r) {
        __m256d product = _mm256_mul_pd(a[r], b);
        keep_unfused(product);
        sum[r][v] = _mm256_add_pd(sum[r][v], product);
      }
    }
  }
  alignas(32) double lanes[4];
  for (int r = 0; r < RT; ++r) {
    for (int v = 0; v < VC; ++v) {
      _mm256_store_pd(lanes, sum[r][v]);
      for (std::size_t q = 0; q < 4; ++q) {
        const std::size_t j = j0 + 4 * v + q;
        if (j < k) out[(i0 + r) + j * ld_out] = lanes[q];
      }
    }
  }
}

template <int RT>
KITCHEN_TARGET_ORDERED void ordered_tiles_avx2(const double* z, std::size_t rows,
                                               std::size_t ld_z, const double* bt,
                                               std::size_t kp, std::size_t i0, std::size_t k,
                                               double* out, std::size_t ld_out) {
  for (std::size_t j0 = 0; j0 < k; j0 += 24) {
    switch (std::min<std::size_t>(6, (k - j0 + 3) / 4)) {
      case 1: ordered_tile_avx2<RT, 1>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
      case 2: ordered_tile_avx2<RT, 2>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
      case 3: ordered_tile_avx2<RT, 3>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
      case 4: ordered_tile_avx2<RT, 4>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
      case 5: ordered_tile_avx2<RT, 5>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
      default: ordered_tile_avx2<RT, 6>(z, rows, ld_z, bt, kp, i0, j0, k, out, ld_out); break;
    }
  }
}

#endif

}  // namespace detail

// The row length of ordered_cross_product()'s transposed columns: k rounded
// up to a multiple of four (the padding holds zeros).
inline std::size_t ordered_row_length(std::size_t k) { return (k + 3) / 4 * 4; }

// out[i + j * ld_out] = sum over l < rows, in order, of z[l + i * ld_z] *
// b[l, j], for the feature columns i0 <= i < i1 and the columns j < k of b,
// given transposed: b[l, j] = bt[l * kp + j], kp = ordered_row_length(k),
// padding zero. Any split of [0, D) into column ranges gives the same bits.
inline void ordered_cross_product(const double* z, std::size_t rows, std::size_t ld_z,
                                  const double* bt, std::size_t kp, std::size_t k,
                                  std::size_t i0, std::size_t i1, double* out,
                                  std::size_t ld_out, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level != simd_level::scalar) {
    std::size_t i = i0;
    for (; i + 2 <= i1; i += 2) detail::ordered_tiles_avx2<2>(z, rows, ld_z, bt, kp, i, k, out, ld_out);
    if (i < i1) detail::ordered_tiles_avx2<1>(z, rows, ld_z, bt, kp, i, k, out, ld_out);
    return;
  }
#endif
  (void)level;
  detail::ordered_columns_scalar(z, rows, ld_z, bt, kp, k, i0, i1, out, ld_out);
}

}  // namespace kitchen
