// A B for a block of feature rows A (rows x depth) and a few columns B (a
// fit's coefficients, one column per response or class), with each entry
// summed as the reference BLAS's dgemm("N", "N") and dgemv sum it: over the
// depth in order, from zero, one rounding for each product and one for
// each sum. So predict()'s scores are what R's %*% gives on that BLAS, bit
// for bit, on every SIMD level and for any number of threads, while the
// reference dgemm runs on one thread: with 26 classes and 4096 features it
// was most of predict()'s time.
//
// The companion of ordered_cross_product.hpp (A'B, the fit's Z'y). Lanes
// hold different rows; a segment of rows is packed one block of depth at a
// time, so that a tile of 16 rows by up to 4 columns reads its rows of A
// contiguously (straight from A they lie a whole column apart) and keeps
// its sums in registers over the block.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "finite.hpp"
#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>
// No "fma" in the target: the products and sums cannot be fused (and
// keep_unfused() says so again).
#define KITCHEN_TARGET_ORDERED_NN __attribute__((target("avx2")))
#define KITCHEN_TARGET_ORDERED_NN_512 __attribute__((target("avx512f")))
#endif

namespace kitchen {

// Rows of A per packed segment, and depth per packed block: 256 x 64
// doubles (128 KB) stay in the L2 cache while the segment's tiles read them.
constexpr std::size_t ordered_segment_rows = 256;
constexpr std::size_t ordered_depth_block = 64;

namespace detail {

constexpr std::size_t ordered_tile_rows = 16;
constexpr std::size_t ordered_tile_columns = 4;

// The tile's running sums at rows [i0, i0 + 16) and columns [j0, j0 + nj) of
// out, or zeros for the first depth block (as dgemm zeroes C when beta = 0);
// rows past `rows` read as zeros.
inline void ordered_tile_load(const double* out, std::size_t ld_out, std::size_t i0,
                              std::size_t rows, std::size_t j0, std::size_t nj, bool first,
                              double* tile) {
  std::fill(tile, tile + ordered_tile_rows * ordered_tile_columns, 0.0);
  if (first) return;
  const std::size_t ni = std::min(ordered_tile_rows, rows - i0);
  for (std::size_t c = 0; c < nj; ++c) {
    for (std::size_t i = 0; i < ni; ++i) tile[i + c * ordered_tile_rows] = out[i0 + i + (j0 + c) * ld_out];
  }
}

inline void ordered_tile_store(const double* tile, std::size_t i0, std::size_t rows,
                               std::size_t j0, std::size_t nj, double* out, std::size_t ld_out) {
  const std::size_t ni = std::min(ordered_tile_rows, rows - i0);
  for (std::size_t c = 0; c < nj; ++c) {
    for (std::size_t i = 0; i < ni; ++i) out[i0 + i + (j0 + c) * ld_out] = tile[i + c * ordered_tile_rows];
  }
}

// tile += packed rows [i0, i0 + 16) times b's rows [l0, l0 + lc) of columns
// [j0, j0 + nj), in order of depth.
inline void ordered_tile_scalar(const double* packed, std::size_t rows_p, std::size_t lc,
                                std::size_t i0, const double* b, std::size_t ld_b,
                                std::size_t l0, std::size_t j0, std::size_t nj, double* tile) {
  for (std::size_t l = 0; l < lc; ++l) {
    const double* a = packed + l * rows_p + i0;
    for (std::size_t c = 0; c < nj; ++c) {
      const double bl = b[l0 + l + (j0 + c) * ld_b];
      double* sum = tile + c * ordered_tile_rows;
      for (std::size_t i = 0; i < ordered_tile_rows; ++i) sum[i] += unfused(a[i] * bl);
    }
  }
}

#if KITCHEN_X86_SIMD

// to[0, n) = from[0, n); whether every value is finite (|x| <= DBL_MAX is
// false for NaN and infinities). Four at a time: this copy is the first
// read of A, and a scalar check per value left its cache misses one at a
// time (most of a one-column product's time).
KITCHEN_TARGET_ORDERED_NN inline bool copy_finite_avx2(const double* from, std::size_t n,
                                                       double* to) {
  const __m256d sign = _mm256_set1_pd(-0.0), largest = _mm256_set1_pd(1.7976931348623157e308);
  __m256d finite = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d v = _mm256_loadu_pd(from + i);
    _mm256_storeu_pd(to + i, v);
    finite = _mm256_and_pd(finite, _mm256_cmp_pd(_mm256_andnot_pd(sign, v), largest, _CMP_LE_OQ));
  }
  bool ok = _mm256_movemask_pd(finite) == 0xF;
  for (; i < n; ++i) {
    to[i] = from[i];
    ok = ok && !is_nonfinite_bits(from[i]);
  }
  return ok;
}

// The tile's 16 rows as two halves of 8, each in 2 x NJ registers of 4.
template <int NJ>
KITCHEN_TARGET_ORDERED_NN void ordered_tile_avx2(const double* packed, std::size_t rows_p,
                                                 std::size_t lc, std::size_t i0, const double* b,
                                                 std::size_t ld_b, std::size_t l0, std::size_t j0,
                                                 double* tile) {
  const double* column[NJ];
  for (int c = 0; c < NJ; ++c) column[c] = b + l0 + (j0 + c) * ld_b;
  for (std::size_t h = 0; h < ordered_tile_rows; h += 8) {
    __m256d sum[2][NJ];
    for (int c = 0; c < NJ; ++c) {
      sum[0][c] = _mm256_loadu_pd(tile + c * ordered_tile_rows + h);
      sum[1][c] = _mm256_loadu_pd(tile + c * ordered_tile_rows + h + 4);
    }
    for (std::size_t l = 0; l < lc; ++l) {
      const double* a = packed + l * rows_p + i0 + h;
      const __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4);
      for (int c = 0; c < NJ; ++c) {
        const __m256d bl = _mm256_broadcast_sd(column[c] + l);
        __m256d p0 = _mm256_mul_pd(a0, bl), p1 = _mm256_mul_pd(a1, bl);
        keep_unfused(p0);
        keep_unfused(p1);
        sum[0][c] = _mm256_add_pd(sum[0][c], p0);
        sum[1][c] = _mm256_add_pd(sum[1][c], p1);
      }
    }
    for (int c = 0; c < NJ; ++c) {
      _mm256_storeu_pd(tile + c * ordered_tile_rows + h, sum[0][c]);
      _mm256_storeu_pd(tile + c * ordered_tile_rows + h + 4, sum[1][c]);
    }
  }
}

// The tile's 16 rows in 2 x NJ registers of 8.
template <int NJ>
KITCHEN_TARGET_ORDERED_NN_512 void ordered_tile_avx512(const double* packed, std::size_t rows_p,
                                                       std::size_t lc, std::size_t i0,
                                                       const double* b, std::size_t ld_b,
                                                       std::size_t l0, std::size_t j0,
                                                       double* tile) {
  __m512d sum[2][NJ];
  const double* column[NJ];
  for (int c = 0; c < NJ; ++c) {
    sum[0][c] = _mm512_loadu_pd(tile + c * ordered_tile_rows);
    sum[1][c] = _mm512_loadu_pd(tile + c * ordered_tile_rows + 8);
    column[c] = b + l0 + (j0 + c) * ld_b;
  }
  for (std::size_t l = 0; l < lc; ++l) {
    const double* a = packed + l * rows_p + i0;
    const __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8);
    for (int c = 0; c < NJ; ++c) {
      const __m512d bl = _mm512_set1_pd(column[c][l]);
      __m512d p0 = _mm512_mul_pd(a0, bl), p1 = _mm512_mul_pd(a1, bl);
      keep_unfused(p0);
      keep_unfused(p1);
      sum[0][c] = _mm512_add_pd(sum[0][c], p0);
      sum[1][c] = _mm512_add_pd(sum[1][c], p1);
    }
  }
  for (int c = 0; c < NJ; ++c) {
    _mm512_storeu_pd(tile + c * ordered_tile_rows, sum[0][c]);
    _mm512_storeu_pd(tile + c * ordered_tile_rows + 8, sum[1][c]);
  }
}

template <int NJ>
inline void ordered_tile_simd(simd_level level, const double* packed, std::size_t rows_p,
                              std::size_t lc, std::size_t i0, const double* b, std::size_t ld_b,
                              std::size_t l0, std::size_t j0, double* tile) {
  if (level == simd_level::avx512) {
    ordered_tile_avx512<NJ>(packed, rows_p, lc, i0, b, ld_b, l0, j0, tile);
  } else {
    ordered_tile_avx2<NJ>(packed, rows_p, lc, i0, b, ld_b, l0, j0, tile);
  }
}

#endif

}  // namespace detail

// out[i + j * ld_out] = sum over l < depth, in order, of a[i + l * ld_a] *
// b[l + j * ld_b], for the rows r0 <= i < r1 and the columns j < k. Any
// split of the rows gives the same bits. `pack` is the caller's scratch
// (one per thread). Returns false, with out unspecified, if a's rows hold
// a value that is not finite: R's %*% sums those in long double instead.
inline bool ordered_product(const double* a, std::size_t ld_a, std::size_t depth,
                            const double* b, std::size_t ld_b, std::size_t k, std::size_t r0,
                            std::size_t r1, double* out, std::size_t ld_out, simd_level level,
                            std::vector<double>& pack) {
  constexpr std::size_t tr = detail::ordered_tile_rows, tc = detail::ordered_tile_columns;
  alignas(64) double tile[tr * tc];
  for (std::size_t s0 = r0; s0 < r1; s0 += ordered_segment_rows) {
    const std::size_t rows = std::min(ordered_segment_rows, r1 - s0);
    const std::size_t rows_p = (rows + tr - 1) / tr * tr;
    for (std::size_t l0 = 0; l0 < depth; l0 += ordered_depth_block) {
      const std::size_t lc = std::min(ordered_depth_block, depth - l0);
      pack.resize(lc * rows_p);
      for (std::size_t l = 0; l < lc; ++l) {
        const double* from = a + s0 + (l0 + l) * ld_a;
        double* to = pack.data() + l * rows_p;
#if KITCHEN_X86_SIMD
        if (level != simd_level::scalar) {
          if (!detail::copy_finite_avx2(from, rows, to)) return false;
        } else
#endif
        {
          if (!all_finite(from, rows)) return false;
          std::copy(from, from + rows, to);
        }
        std::fill(to + rows, to + rows_p, 0.0);
      }
      for (std::size_t j0 = 0; j0 < k; j0 += tc) {
        const std::size_t nj = std::min(tc, k - j0);
        for (std::size_t i0 = 0; i0 < rows; i0 += tr) {
          detail::ordered_tile_load(out + s0, ld_out, i0, rows, j0, nj, l0 == 0, tile);
#if KITCHEN_X86_SIMD
          if (level != simd_level::scalar) {
            switch (nj) {
              case 1: detail::ordered_tile_simd<1>(level, pack.data(), rows_p, lc, i0, b, ld_b, l0, j0, tile); break;
              case 2: detail::ordered_tile_simd<2>(level, pack.data(), rows_p, lc, i0, b, ld_b, l0, j0, tile); break;
              case 3: detail::ordered_tile_simd<3>(level, pack.data(), rows_p, lc, i0, b, ld_b, l0, j0, tile); break;
              default: detail::ordered_tile_simd<4>(level, pack.data(), rows_p, lc, i0, b, ld_b, l0, j0, tile); break;
            }
          } else
#endif
          {
            detail::ordered_tile_scalar(pack.data(), rows_p, lc, i0, b, ld_b, l0, j0, nj, tile);
          }
          detail::ordered_tile_store(tile, i0, rows, j0, nj, out + s0, ld_out);
        }
      }
    }
  }
  (void)level;
  return true;
}

}  // namespace kitchen
