// Hand-vectorised G += Z'Z (AVX-512 and AVX2+FMA micro-kernels).
//
// Compiled with R's portable flags: the wide instructions live only in the
// micro-kernels marked KITCHEN_TARGET_GRAM_*, which gram.hpp calls only for
// a level that resolve_simd() granted.
//
// Classic GEMM blocking. Rows of Z are taken gram_block_rows at a time; each
// block is packed once into strips of MR columns (kc x MR, row-major,
// zero-padded), shared by all threads, so the micro-kernel reads contiguous
// memory and no column is copied more than once per block. (Packing also
// matters for the cache: with a power-of-two number of rows, the columns of
// Z map to a handful of cache sets.) The micro-kernel keeps an MR x NR tile
// of G in registers and, for each row k, multiplies the MR values of one
// strip by broadcasts of NR values of another (NR divides MR, so a tile's
// NR columns lie within one strip).
//
// Each entry of G gets one partial sum per block of rows, accumulated in
// the same order whatever the number of threads: the blocking depends only
// on rows and dim. Results differ from the Eigen path in rounding only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>
#define KITCHEN_TARGET_GRAM_AVX512 __attribute__((target("avx512f,avx512dq")))
#define KITCHEN_TARGET_GRAM_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace kitchen {

// Rows of Z per packed block: a 128-column panel of it (~0.5 MB) stays in
// L2, and G's tiles are loaded and stored once per 512 rows. (On Zen 5,
// 512 ran 7% faster than 256, 40% faster than 128.)
constexpr std::size_t gram_block_rows = 512;

namespace detail {

// out[k * width + c] = Z[k0 + k, c0 + c] for k < kc, c < w; zero for
// w <= c < width.
inline void gram_pack(const double* z, std::size_t ld_z, std::size_t k0, std::size_t kc,
                      std::size_t c0, std::size_t w, std::size_t width, double* out) {
  for (std::size_t c = 0; c < w; ++c) {
    const double* col = z + (c0 + c) * ld_z + k0;
    for (std::size_t k = 0; k < kc; ++k) out[k * width + c] = col[k];
  }
  for (std::size_t c = w; c < width; ++c) {
    for (std::size_t k = 0; k < kc; ++k) out[k * width + c] = 0.0;
  }
}

#if KITCHEN_X86_SIMD

// AVX-512: 24 x 8 tile = 24 zmm accumulators plus 3 for the strip's row;
// the 8 broadcasts come straight from memory ({1to8} operands).
struct gram_avx512 {
  static constexpr std::size_t mr = 24, nr = 8;

  // c[0:24, 0:8] (column stride ldc) += a' b over kc rows, where a and b
  // step by mr doubles per row.
  KITCHEN_TARGET_GRAM_AVX512 static void kernel(std::size_t kc, const double* a,
                                                const double* b, double* c,
                                                std::size_t ldc) {
    __m512d c0[nr], c1[nr], c2[nr];
#pragma GCC unroll 8
    for (std::size_t j = 0; j < nr; ++j) c0[j] = c1[j] = c2[j] = _mm512_setzero_pd();
    for (std::size_t k = 0; k < kc; ++k, a += mr, b += mr) {
      const __m512d a0 = _mm512_loadu_pd(a), a1 = _mm512_loadu_pd(a + 8);
      const __m512d a2 = _mm512_loadu_pd(a + 16);
#pragma GCC unroll 8
      for (std::size_t j = 0; j < nr; ++j) {
        const __m512d bj = _mm512_set1_pd(b[j]);
        c0[j] = _mm512_fmadd_pd(a0, bj, c0[j]);
        c1[j] = _mm512_fmadd_pd(a1, bj, c1[j]);
        c2[j] = _mm512_fmadd_pd(a2, bj, c2[j]);
      }
    }
#pragma GCC unroll 8
    for (std::size_t j = 0; j < nr; ++j) {
      double* cj = c + j * ldc;
      _mm512_storeu_pd(cj, _mm512_add_pd(_mm512_loadu_pd(cj), c0[j]));
      _mm512_storeu_pd(cj + 8, _mm512_add_pd(_mm512_loadu_pd(cj + 8), c1[j]));
      _mm512_storeu_pd(cj + 16, _mm512_add_pd(_mm512_loadu_pd(cj + 16), c2[j]));
    }
  }
};

// AVX2: 12 x 4 tile = 12 ymm accumulators, 3 for the strip's row and one
// broadcast: all 16 ymm registers.
struct gram_avx2 {
  static constexpr std::size_t mr = 12, nr = 4;

  KITCHEN_TARGET_GRAM_AVX2 static void kernel(std::size_t kc, const double* a,
                                              const double* b, double* c,
                                              std::size_t ldc) {
    __m256d c0[nr], c1[nr], c2[nr];
#pragma GCC unroll 4
    for (std::size_t j = 0; j < nr; ++j) c0[j] = c1[j] = c2[j] = _mm256_setzero_pd();
    for (std::size_t k = 0; k < kc; ++k, a += mr, b += mr) {
      const __m256d a0 = _mm256_loadu_pd(a), a1 = _mm256_loadu_pd(a + 4);
      const __m256d a2 = _mm256_loadu_pd(a + 8);
#pragma GCC unroll 4
      for (std::size_t j = 0; j < nr; ++j) {
        const __m256d bj = _mm256_broadcast_sd(b + j);
        c0[j] = _mm256_fmadd_pd(a0, bj, c0[j]);
        c1[j] = _mm256_fmadd_pd(a1, bj, c1[j]);
        c2[j] = _mm256_fmadd_pd(a2, bj, c2[j]);
      }
    }
#pragma GCC unroll 4
    for (std::size_t j = 0; j < nr; ++j) {
      double* cj = c + j * ldc;
      _mm256_storeu_pd(cj, _mm256_add_pd(_mm256_loadu_pd(cj), c0[j]));
      _mm256_storeu_pd(cj + 4, _mm256_add_pd(_mm256_loadu_pd(cj + 4), c1[j]));
      _mm256_storeu_pd(cj + 8, _mm256_add_pd(_mm256_loadu_pd(cj + 8), c2[j]));
    }
  }
};

// c[0:ni, 0:nj] (column stride ldc) += a' b over kc rows, for a tile that
// may be cut by the edge of c (ni <= mr, nj <= nr): an edge tile goes
// through a zeroed full tile, with the same sums.
template <class Kernel>
void kernel_tile(std::size_t kc, const double* a, const double* b, double* c, std::size_t ldc,
                 std::size_t ni, std::size_t nj) {
  constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr;
  if (ni == mr && nj == nr) {
    Kernel::kernel(kc, a, b, c, ldc);
    return;
  }
  alignas(64) double tile[mr * nr] = {0.0};
  Kernel::kernel(kc, a, b, tile, mr);
  for (std::size_t j = 0; j < nj; ++j) {
    for (std::size_t i = 0; i < ni; ++i) c[i + j * ldc] += tile[i + j * mr];
  }
}

// G[0:end, begin:end] (column stride ldg) += left' right[:, begin:end], left
// and right blocks of kc rows of a rows x dim matrix packed in
// Kernel::mr-wide strips, on the tiles that touch the upper triangle (begin
// must be a multiple of Kernel::nr). Tiles on the diagonal also update a
// few entries below it, and rows past `end` (below dim) are computed rather
// than masked. The Gram matrix is left = right (gram_packed_panel()); the
// blocked Cholesky's trailing update passes a negated copy as `left`
// (cholesky_simd.hpp).
template <class Kernel>
void gram_packed_panel_pair(const double* left, const double* right, std::size_t kc,
                            std::size_t dim, std::size_t ldg, std::size_t begin, std::size_t end,
                            double* g) {
  constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr;
  static_assert(mr % nr == 0, "a tile's columns must lie within one strip");
  const std::size_t strip = kc * mr;
  for (std::size_t i0 = 0; i0 < end; i0 += mr) {
    const double* a = left + (i0 / mr) * strip;
    const std::size_t ni = std::min(mr, dim - i0);
    // First tile with a column j >= i0, i.e. touching the upper triangle.
    const std::size_t first = i0 > begin ? begin + (i0 - begin) / nr * nr : begin;
    for (std::size_t j0 = first; j0 < end; j0 += nr) {
      const std::size_t nj = std::min(nr, end - j0);
      const double* b = right + (j0 / mr) * strip + j0 % mr;
      kernel_tile<Kernel>(kc, a, b, g + i0 + j0 * ldg, ldg, ni, nj);
    }
  }
}

// G[0:end, begin:end] += (block)' (block)[:, begin:end] (G: dim x dim).
template <class Kernel>
void gram_packed_panel(const double* packed, std::size_t kc, std::size_t dim,
                       std::size_t begin, std::size_t end, double* g) {
  gram_packed_panel_pair<Kernel>(packed, packed, kc, dim, dim, begin, end, g);
}

#endif  // KITCHEN_X86_SIMD

}  // namespace detail

// Width of the packed strips on `level` (0: scalar, which does not pack).
inline std::size_t gram_strip_width(simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512) return detail::gram_avx512::mr;
  if (level == simd_level::avx2) return detail::gram_avx2::mr;
#endif
  (void)level;
  return 0;
}

inline std::size_t gram_n_strips(std::size_t dim, simd_level level) {
  const std::size_t width = gram_strip_width(level);
  return width == 0 ? 0 : (dim + width - 1) / width;
}

// p advanced to the next 64-byte boundary (cache lines, zmm loads); buffers
// are allocated 8 doubles longer for it.
inline double* align64(double* p) {
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  return p + ((64 - a % 64) % 64) / sizeof(double);
}

// A packed block of up to gram_block_rows rows of a rows x dim Z: its data()
// is 64-byte aligned (cache lines, zmm loads). Allocate it outside worker
// threads: the constructor may throw.
class gram_packed_block {
 public:
  gram_packed_block(std::size_t rows, std::size_t dim, simd_level level)
      : buf_(std::min(rows, gram_block_rows) * gram_n_strips(dim, level) *
                 gram_strip_width(level) + 8) {}
  double* data() { return align64(buf_.data()); }

 private:
  std::vector<double> buf_;
};

// Packs strips [s_begin, s_end) of rows k0 .. k0 + kc of Z (column stride
// ld_z) into `packed`, for `level` (avx2 or avx512).
inline void gram_pack_strips(const double* z, std::size_t ld_z, std::size_t k0, std::size_t kc,
                             std::size_t dim, std::size_t s_begin, std::size_t s_end,
                             simd_level level, double* packed) {
  const std::size_t width = gram_strip_width(level);
  for (std::size_t s = s_begin; s < s_end; ++s) {
    const std::size_t c0 = s * width;
    detail::gram_pack(z, ld_z, k0, kc, c0, std::min(width, dim - c0), width,
                      packed + s * kc * width);
  }
}

}  // namespace kitchen
