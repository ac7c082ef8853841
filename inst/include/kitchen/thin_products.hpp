// Products of a block of feature rows with a few columns: the logistic
// pass's class links L = Z C (rows x K) and gradient G += Z'R (D x K), K
// the number of classes.
//
// The rows are stored one after the other (`zt`, D x n column-major: row i
// of Z is the contiguous zt[i * D, (i + 1) * D)), so that a block of rows
// is one contiguous read; with Z column-major each row tile touched one
// cache line in every column, D pages apart. Eigen runs the products with
// SSE2 under R's portable flags; these AVX2 / FMA kernels (also used on
// AVX-512 CPUs) keep a tile of the result in registers over the whole
// depth. Each output entry is summed in a fixed order that depends only on
// the block's shape, so a pass gives the same bits for any number of
// threads. The rows may be held in single precision (half the memory
// read per pass, which bounds it once they exceed the cache); they are
// widened to double as they are loaded, and every product and sum is in
// double.
#pragma once

#include <cstddef>
#include <type_traits>

#include "eigen.hpp"
#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>
#define KITCHEN_TARGET_THIN_AVX2 __attribute__((target("avx2,fma")))
#endif

// The tiles' loops over their few rows and classes, unrolled so that the
// accumulators live in registers (R's -O2 does not unroll them: the arrays
// went to the stack, at a third of the speed).
#if defined(__GNUC__) && !defined(__clang__)
#define KITCHEN_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define KITCHEN_UNROLL _Pragma("unroll")
#else
#define KITCHEN_UNROLL
#endif

namespace kitchen {

namespace detail {

#if KITCHEN_X86_SIMD

// Four entries of a row, widened to double.
KITCHEN_TARGET_THIN_AVX2 inline __m256d thin_load4(const double* p) { return _mm256_loadu_pd(p); }
KITCHEN_TARGET_THIN_AVX2 inline __m256d thin_load4(const float* p) {
  return _mm256_cvtps_pd(_mm_loadu_ps(p));
}

KITCHEN_TARGET_THIN_AVX2 inline double thin_sum4(__m256d v) {
  alignas(32) double t[4];
  _mm256_store_pd(t, v);
  return (t[0] + t[1]) + (t[2] + t[3]);
}

// links[i + c * ld_links] = z_i . w_c for the RT rows from i0 (row i at
// zt + i * d) and the KC classes from c0 (w_c = w + c * d): RT x KC ymm
// accumulators over the depth in fours, the last d % 4 terms added after.
template <int RT, int KC, typename Z>
KITCHEN_TARGET_THIN_AVX2 inline void thin_links_tile(const Z* zt, std::size_t d,
                                                     const double* w, std::size_t c0,
                                                     std::size_t i0, double* links,
                                                     std::size_t ld_links) {
  __m256d acc[RT][KC];
  KITCHEN_UNROLL
  for (int r = 0; r < RT; ++r) {
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) acc[r][c] = _mm256_setzero_pd();
  }
  const std::size_t body = d / 4 * 4;
  for (std::size_t j = 0; j < body; j += 4) {
    __m256d wv[KC];
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) wv[c] = _mm256_loadu_pd(w + (c0 + c) * d + j);
    KITCHEN_UNROLL
    for (int r = 0; r < RT; ++r) {
      const __m256d zv = thin_load4(zt + (i0 + r) * d + j);
      KITCHEN_UNROLL
      for (int c = 0; c < KC; ++c) acc[r][c] = _mm256_fmadd_pd(zv, wv[c], acc[r][c]);
    }
  }
  KITCHEN_UNROLL
  for (int r = 0; r < RT; ++r) {
    const Z* zr = zt + (i0 + r) * d;
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) {
      const double* wc = w + (c0 + c) * d;
      double s = thin_sum4(acc[r][c]);
      for (std::size_t j = body; j < d; ++j) s += static_cast<double>(zr[j]) * wc[j];
      links[i0 + r + (c0 + c) * ld_links] = s;
    }
  }
}

// g[j + c * d] += sum_i z_i[j] * res[i + c * rows] for the 4 V features
// from j0 and the KC classes from c0, over the rows of the block in order:
// V x KC ymm accumulators.
template <int V, int KC, typename Z>
KITCHEN_TARGET_THIN_AVX2 inline void thin_gradient_tile(const Z* zt, std::size_t d,
                                                        std::size_t rows, const double* res,
                                                        std::size_t c0, std::size_t j0,
                                                        double* g) {
  __m256d acc[V][KC];
  KITCHEN_UNROLL
  for (int v = 0; v < V; ++v) {
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) acc[v][c] = _mm256_loadu_pd(g + (c0 + c) * d + j0 + 4 * v);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    const Z* zi = zt + i * d + j0;
    __m256d rv[KC];
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) rv[c] = _mm256_broadcast_sd(res + i + (c0 + c) * rows);
    KITCHEN_UNROLL
    for (int v = 0; v < V; ++v) {
      const __m256d zv = thin_load4(zi + 4 * v);
      KITCHEN_UNROLL
      for (int c = 0; c < KC; ++c) acc[v][c] = _mm256_fmadd_pd(zv, rv[c], acc[v][c]);
    }
  }
  KITCHEN_UNROLL
  for (int v = 0; v < V; ++v) {
    KITCHEN_UNROLL
    for (int c = 0; c < KC; ++c) _mm256_storeu_pd(g + (c0 + c) * d + j0 + 4 * v, acc[v][c]);
  }
}

// The classes in chunks of 3 and 2 (4 x 3 accumulators in a links tile,
// 4 x 3 in a gradient tile, of the 16 ymm registers), a chunk of one only
// for one class: a tile of one class has four accumulators, too few to
// hide the FMA latency (on 7 classes as 3 + 3 + 1, the one-class gradient
// tile took 2.3 times as long per class as the others). Each entry's sum
// runs in the same order whatever the chunks.
template <typename Tile>
inline void thin_class_chunks(std::size_t k, const Tile& tile) {
  std::size_t c0 = 0;
  for (; k - c0 > 4; c0 += 3) tile(c0, std::integral_constant<int, 3>());
  if (k - c0 == 4) {
    tile(c0, std::integral_constant<int, 2>());
    c0 += 2;
  }
  if (k - c0 == 3) tile(c0, std::integral_constant<int, 3>());
  if (k - c0 == 2) tile(c0, std::integral_constant<int, 2>());
  if (k - c0 == 1) tile(c0, std::integral_constant<int, 1>());
}

#endif  // KITCHEN_X86_SIMD

}  // namespace detail

using thin_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
// Rows held in double or single precision.
template <typename Z>
using thin_rows = Eigen::Matrix<Z, Eigen::Dynamic, Eigen::Dynamic>;

// links = Z[r0 : r0 + rows, ] w: zt holds Z's rows as columns (D x n), w is
// D x K; links becomes rows x K.
template <typename Z>
inline void thin_links(const thin_rows<Z>& zt, Eigen::Index r0, Eigen::Index rows,
                       const thin_matrix& w, thin_matrix& links, simd_level level) {
  links.resize(rows, w.cols());
#if KITCHEN_X86_SIMD
  if (level != simd_level::scalar) {
    const std::size_t n = static_cast<std::size_t>(rows), d = static_cast<std::size_t>(zt.rows());
    const std::size_t k = static_cast<std::size_t>(w.cols());
    const Z* base = zt.data() + static_cast<std::size_t>(r0) * d;
    std::size_t i0 = 0;
    for (; i0 + 4 <= n; i0 += 4) {
      detail::thin_class_chunks(k, [&](std::size_t c0, auto kc) {
        detail::thin_links_tile<4, decltype(kc)::value>(base, d, w.data(), c0, i0, links.data(), n);
      });
    }
    for (; i0 < n; ++i0) {
      detail::thin_class_chunks(k, [&](std::size_t c0, auto kc) {
        detail::thin_links_tile<1, decltype(kc)::value>(base, d, w.data(), c0, i0, links.data(), n);
      });
    }
    return;
  }
#endif
  (void)level;
  if constexpr (std::is_same<Z, double>::value) {
    links.noalias() = zt.middleCols(r0, rows).transpose() * w;
  } else {
    links.noalias() = zt.middleCols(r0, rows).transpose().template cast<double>() * w;
  }
}

// gradient += Z[r0 : r0 + rows, ]' r: zt as for thin_links(), r rows x K,
// gradient D x K.
template <typename Z>
inline void thin_gradient_add(const thin_rows<Z>& zt, Eigen::Index r0, Eigen::Index rows,
                              const thin_matrix& r, thin_matrix& gradient, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level != simd_level::scalar) {
    const std::size_t n = static_cast<std::size_t>(rows), d = static_cast<std::size_t>(zt.rows());
    const std::size_t k = static_cast<std::size_t>(r.cols());
    const Z* base = zt.data() + static_cast<std::size_t>(r0) * d;
    const std::size_t tiled = d / 16 * 16, quads = d / 4 * 4;
    for (std::size_t j0 = 0; j0 < tiled; j0 += 16) {
      detail::thin_class_chunks(k, [&](std::size_t c0, auto kc) {
        detail::thin_gradient_tile<4, decltype(kc)::value>(base, d, n, r.data(), c0, j0,
                                                           gradient.data());
      });
    }
    for (std::size_t j0 = tiled; j0 < quads; j0 += 4) {
      detail::thin_class_chunks(k, [&](std::size_t c0, auto kc) {
        detail::thin_gradient_tile<1, decltype(kc)::value>(base, d, n, r.data(), c0, j0,
                                                           gradient.data());
      });
    }
    for (std::size_t c = 0; c < k; ++c) {  // the last d % 4 features, rows in order
      const double* rc = r.data() + c * n;
      double* gc = gradient.data() + c * d;
      for (std::size_t i = 0; i < n; ++i) {
        const Z* zi = base + i * d;
        for (std::size_t j = quads; j < d; ++j) gc[j] += static_cast<double>(zi[j]) * rc[i];
      }
    }
    return;
  }
#endif
  (void)level;
  if constexpr (std::is_same<Z, double>::value) {
    gradient.noalias() += zt.middleCols(r0, rows) * r;
  } else {
    gradient.noalias() += zt.middleCols(r0, rows).template cast<double>() * r;
  }
}

}  // namespace kitchen
