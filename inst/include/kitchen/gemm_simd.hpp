// Dense products X P (rows of data times the rff projection) on the
// AVX-512 / AVX2 micro-kernels of gram_simd.hpp.
//
// P (d x m) is packed once per call into strips of Kernel::mr columns, depth
// block by depth block (gemm_depth rows of P at a time), so the micro-kernel
// reads it contiguously. A unit of work is gemm_block_rows rows of X times a
// group of P's strips: the unit packs its rows of X (the micro-kernel's other
// operand) for each depth block and accumulates the products into the output,
// which it first zeroes.
//
// Every output element is the sum over depth blocks, in order, of one
// micro-kernel sum each: the blocking depends only on d, so results do not
// depend on the number of rows, on how units are spread over threads, or on
// which rows share a unit. They differ from Eigen's or a BLAS's product in
// rounding only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "gram_simd.hpp"
#include "simd.hpp"

namespace kitchen {

// Rows of P per packed depth block.
constexpr std::size_t gemm_depth = 256;
// Rows of X per unit (eight AVX-512 strips, sixteen AVX2 ones): their packed
// depth block (384 KB) stays in L2 while each micro-panel of P (the nr
// columns a micro-kernel call reads, 16 KB) stays in L1 and serves all of
// them, and P is read from memory once per 192 rows.
constexpr std::size_t gemm_block_rows = 192;
// Strips of P per unit (384 AVX-512 or 192 AVX2 columns), so that a few
// rows with many features still make enough units for the threads.
constexpr std::size_t gemm_group_strips = 16;

// Doubles of the unit's packed rows of X, allocated by the caller once per
// thread range (gemm_block_rows rounded up to the strip width, times depth).
inline std::size_t gemm_lhs_size(simd_level level) {
  const std::size_t w = gram_strip_width(level);
  return w == 0 ? 0 : (gemm_block_rows + w - 1) / w * w * gemm_depth;
}

// A packed copy of P for `level`, 64-byte aligned. Allocate it outside
// worker threads: the constructor may throw.
class gemm_packed_rhs {
 public:
  gemm_packed_rhs(std::size_t d, std::size_t m, simd_level level)
      : d_(d), m_(m), level_(level), n_strips_(gram_n_strips(m, level)),
        buf_(d * n_strips_ * gram_strip_width(level) + 8) {}

  std::size_t n_strips() const { return n_strips_; }

  const double* data() const { return align64(const_cast<double*>(buf_.data())); }

  // Packs strips [s_begin, s_end) of P (d x m, column-major, no padding).
  void pack(const double* p, std::size_t s_begin, std::size_t s_end) {
    const std::size_t w = gram_strip_width(level_);
    double* out = align64(buf_.data());
    for (std::size_t k0 = 0; k0 < d_; k0 += gemm_depth) {
      const std::size_t kc = std::min(gemm_depth, d_ - k0);
      for (std::size_t s = s_begin; s < s_end; ++s) {
        const std::size_t c0 = s * w;
        detail::gram_pack(p, d_, k0, kc, c0, std::min(w, m_ - c0), w,
                          out + k0 * n_strips_ * w + s * kc * w);
      }
    }
  }

 private:
  std::size_t d_, m_;
  simd_level level_;
  std::size_t n_strips_;
  std::vector<double> buf_;
};

namespace detail {

#if KITCHEN_X86_SIMD

// out[r0 + i, j] = sum_k x[r0 + i, k] p[k, j] for i < rows (at most
// gemm_block_rows) and j in the columns of strips [s_begin, s_end). x and
// out are column-major with strides ld_x and ld_out; lhs holds
// gemm_lhs_size() doubles.
template <class Kernel>
void gemm_packed_unit(const double* x, std::size_t ld_x, std::size_t d, const gemm_packed_rhs& rhs,
                      std::size_t m, std::size_t r0, std::size_t rows, std::size_t s_begin,
                      std::size_t s_end, double* lhs, double* out, std::size_t ld_out) {
  constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr;
  const std::size_t ns = rhs.n_strips();
  const std::size_t n_lhs = (rows + mr - 1) / mr;
  const std::size_t col_end = std::min(m, s_end * mr);
  for (std::size_t j = s_begin * mr; j < col_end; ++j) {
    std::fill(out + r0 + j * ld_out, out + r0 + rows + j * ld_out, 0.0);
  }
  for (std::size_t k0 = 0; k0 < d; k0 += gemm_depth) {
    const std::size_t kc = std::min(gemm_depth, d - k0);
    // lhs strip s, row k: x[r0 + s mr + i, k0 + k] for i < mr, zero past `rows`.
    for (std::size_t k = 0; k < kc; ++k) {
      const double* col = x + (k0 + k) * ld_x + r0;
      for (std::size_t s = 0; s < n_lhs; ++s) {
        double* dst = lhs + s * kc * mr + k * mr;
        const std::size_t valid = std::min(mr, rows - s * mr);
        for (std::size_t i = 0; i < valid; ++i) dst[i] = col[s * mr + i];
        for (std::size_t i = valid; i < mr; ++i) dst[i] = 0.0;
      }
    }
    for (std::size_t t = s_begin; t < s_end; ++t) {
      const double* panel = rhs.data() + k0 * ns * mr + t * kc * mr;
      for (std::size_t jj = 0; jj < mr && t * mr + jj < m; jj += nr) {
        const std::size_t j0 = t * mr + jj;
        const std::size_t nj = std::min(nr, m - j0);
        for (std::size_t s = 0; s < n_lhs; ++s) {
          const std::size_t ni = std::min(mr, rows - s * mr);
          kernel_tile<Kernel>(kc, lhs + s * kc * mr, panel + jj,
                              out + r0 + s * mr + j0 * ld_out, ld_out, ni, nj);
        }
      }
    }
  }
}

#endif  // KITCHEN_X86_SIMD

}  // namespace detail

// Up to this many rows, packing P would cost more than the product itself
// (one row at d = 4096 and 16384 frequencies: 106 ms direct, 930 ms packed):
// gemm_direct_columns() computes the same sums from P as it is stored.
constexpr std::size_t gemm_direct_max_rows = 8;

namespace detail {

#if KITCHEN_X86_SIMD
#define KITCHEN_TARGET_GEMM_FMA __attribute__((target("avx2,fma")))

// out[i, j] for rows i < n and columns j in [j_begin, j_end), summed exactly
// as the micro-kernels do: per depth block, a chain of fused multiply-adds
// over k in order from zero, then added to the running value (from zero).
// Eight columns at a time, each read down its own contiguous column of P.
KITCHEN_TARGET_GEMM_FMA inline void gemm_direct_fma(const double* x, std::size_t n,
                                                    std::size_t ld_x, std::size_t d,
                                                    const double* p, std::size_t j_begin,
                                                    std::size_t j_end, double* out,
                                                    std::size_t ld_out) {
  constexpr std::size_t width = 8;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j0 = j_begin; j0 < j_end; j0 += width) {
      const std::size_t nj = std::min(width, j_end - j0);
      double total[width] = {0.0}, part[width];
      for (std::size_t k0 = 0; k0 < d; k0 += gemm_depth) {
        const std::size_t kc = std::min(gemm_depth, d - k0);
        for (std::size_t j = 0; j < width; ++j) part[j] = 0.0;
        for (std::size_t k = k0; k < k0 + kc; ++k) {
          const double xk = x[i + k * ld_x];
          for (std::size_t j = 0; j < nj; ++j) part[j] = __builtin_fma(xk, p[k + (j0 + j) * d], part[j]);
        }
        for (std::size_t j = 0; j < nj; ++j) total[j] = total[j] + part[j];
      }
      for (std::size_t j = 0; j < nj; ++j) out[i + (j0 + j) * ld_out] = total[j];
    }
  }
}
#endif  // KITCHEN_X86_SIMD

}  // namespace detail

// The product of a few rows of x (n x d, stride ld_x) by P (d x m, as stored)
// for columns [j_begin, j_end), bitwise equal to the packed product; for
// n up to gemm_direct_max_rows and a `level` of avx2 or avx512.
inline void gemm_direct_columns(const double* x, std::size_t n, std::size_t ld_x, std::size_t d,
                                const double* p, std::size_t j_begin, std::size_t j_end,
                                double* out, std::size_t ld_out) {
#if KITCHEN_X86_SIMD
  detail::gemm_direct_fma(x, n, ld_x, d, p, j_begin, j_end, out, ld_out);
#else
  (void)x; (void)n; (void)ld_x; (void)d; (void)p; (void)j_begin; (void)j_end; (void)out;
  (void)ld_out;
#endif
}

// The same sums for a few rows from P transposed (pt[k * ld_pt + j], one
// contiguous row per input column, as an rff map's cache keeps it,
// src/rff_map_cache.h): each output column is a lane of a vector, so the
// chain of fused multiply-adds of every (row, column) is the direct path's,
// in the same order, and the bits are equal, while a vector instruction does
// 8 (AVX-512) or 4 (AVX2) of them. Rows up to gemm_transposed_max_rows: past
// that, packing P once per call costs less than re-reading it for each row.
constexpr std::size_t gemm_transposed_max_rows = 64;

// The row stride of P transposed as it is kept for these products (the
// `ld_pt` of gemm_transposed_columns()): m rounded up to whole 64-byte lines,
// an odd number of them, so that the d rows a strip of columns walks down
// fall in different sets of the L1 cache (64 sets of 64-byte lines, a 4 KB
// period). With a stride of m = 512 doubles (4 KB) every row fell in one
// set: the product of 1 row took 13.2 us at d = 64, against 6.0 us at
// m = 500 (bench/cpp/few_rows_bench.cpp, AVX2 Zen 3).
inline std::size_t gemm_transposed_stride(std::size_t m) {
  const std::size_t lines = (m + 7) / 8;
  return 8 * (lines % 2 == 0 ? lines + 1 : lines);
}

namespace detail {

#if KITCHEN_X86_SIMD

// One (row, column) of gemm_direct_fma(), for columns past the vectors.
KITCHEN_TARGET_GEMM_FMA inline double gemm_transposed_one(const double* x, std::size_t ld_x,
                                                          std::size_t d, const double* pt,
                                                          std::size_t ld_pt, std::size_t j) {
  double total = 0.0;
  for (std::size_t k0 = 0; k0 < d; k0 += gemm_depth) {
    const std::size_t kc = std::min(gemm_depth, d - k0);
    double part = 0.0;
    for (std::size_t k = k0; k < k0 + kc; ++k) {
      part = __builtin_fma(x[k * ld_x], pt[k * ld_pt + j], part);
    }
    total = total + part;
  }
  return total;
}

// Columns [j_begin, j_end) of rows [0, n): `LANES` doubles a vector. R rows
// at a time share each load of P's row, and their V vectors of columns each
// (R x V independent chains) keep the FMA units busy.
#define KITCHEN_GEMM_TRANSPOSED_KERNEL(NAME, TARGET, VEC, LANES, ZERO, SET1, LOAD, FMA, ADD,    \
                                       STORE)                                                   \
  template <std::size_t R, std::size_t V>                                                       \
  TARGET inline void NAME##_rows(const double* x, std::size_t ld_x, std::size_t d,              \
                                 const double* pt, std::size_t ld_pt, std::size_t j_begin,      \
                                 std::size_t j_end, double* out, std::size_t ld_out) {          \
    constexpr std::size_t lanes = LANES, width = LANES * V;                                     \
    std::size_t j0 = j_begin;                                                                   \
    for (; j0 + width <= j_end; j0 += width) {                                                  \
      alignas(64) double total[R][width] = {};                                                  \
      for (std::size_t k0 = 0; k0 < d; k0 += gemm_depth) {                                      \
        const std::size_t kc = std::min(gemm_depth, d - k0);                                    \
        VEC part[R][V];                                                                         \
        _Pragma("GCC unroll 8")                                                                 \
        for (std::size_t r = 0; r < R; ++r) {                                                   \
          _Pragma("GCC unroll 8")                                                               \
          for (std::size_t v = 0; v < V; ++v) part[r][v] = ZERO();                              \
        }                                                                                       \
        for (std::size_t k = k0; k < k0 + kc; ++k) {                                            \
          const double* row = pt + k * ld_pt + j0;                                              \
          VEC p[V];                                                                             \
          _Pragma("GCC unroll 8")                                                               \
          for (std::size_t v = 0; v < V; ++v) p[v] = LOAD(row + v * lanes);                     \
          _Pragma("GCC unroll 8")                                                               \
          for (std::size_t r = 0; r < R; ++r) {                                                 \
            const VEC xk = SET1(x[r + k * ld_x]);                                               \
            _Pragma("GCC unroll 8")                                                             \
            for (std::size_t v = 0; v < V; ++v) part[r][v] = FMA(xk, p[v], part[r][v]);         \
          }                                                                                     \
        }                                                                                       \
        _Pragma("GCC unroll 8")                                                                 \
        for (std::size_t r = 0; r < R; ++r) {                                                   \
          _Pragma("GCC unroll 8")                                                               \
          for (std::size_t v = 0; v < V; ++v) {                                                 \
            STORE(total[r] + v * lanes, ADD(LOAD(total[r] + v * lanes), part[r][v]));           \
          }                                                                                     \
        }                                                                                       \
      }                                                                                         \
      for (std::size_t r = 0; r < R; ++r) {                                                     \
        for (std::size_t j = 0; j < width; ++j) out[r + (j0 + j) * ld_out] = total[r][j];       \
      }                                                                                         \
    }                                                                                           \
    for (; j0 < j_end; ++j0) {                                                                  \
      for (std::size_t r = 0; r < R; ++r) {                                                     \
        out[r + j0 * ld_out] = gemm_transposed_one(x + r, ld_x, d, pt, ld_pt, j0);              \
      }                                                                                         \
    }                                                                                           \
  }

KITCHEN_GEMM_TRANSPOSED_KERNEL(gemm_transposed_avx512, KITCHEN_TARGET_GRAM_AVX512, __m512d, 8,
                               _mm512_setzero_pd, _mm512_set1_pd, _mm512_loadu_pd,
                               _mm512_fmadd_pd, _mm512_add_pd, _mm512_storeu_pd)
KITCHEN_GEMM_TRANSPOSED_KERNEL(gemm_transposed_avx2, KITCHEN_TARGET_GRAM_AVX2, __m256d, 4,
                               _mm256_setzero_pd, _mm256_set1_pd, _mm256_loadu_pd,
                               _mm256_fmadd_pd, _mm256_add_pd, _mm256_storeu_pd)
#undef KITCHEN_GEMM_TRANSPOSED_KERNEL

// AVX-512: 6 rows at a time (24 accumulators of 4 vectors), then 4 (4
// vectors), 2 and 1 (8 each), within the 32 registers. Each pass re-reads
// all of P, and passes of 1 or 2 rows are bound by those reads, not by the
// FMAs (10 rows as 6 + 4 instead of 4 + 4 + 2; thread CPU time of the
// product 36.9 -> 31.6 us at d = 64, m = 1024 on a Zen 4,
// bench/cpp/few_rows_bench.cpp).
KITCHEN_TARGET_GRAM_AVX512 inline void gemm_transposed_avx512_passes(
    const double* x, std::size_t n, std::size_t ld_x, std::size_t d, const double* pt,
    std::size_t ld_pt, std::size_t j_begin, std::size_t j_end, double* out, std::size_t ld_out) {
  std::size_t i = 0;
  // 6 rows unless 2 or 3 would remain: their passes read all of P for few
  // FMAs (8 rows: 4 + 4 beat 6 + 2).
  for (; i + 6 <= n && (n - i - 6 < 2 || n - i - 6 > 3); i += 6) {
    gemm_transposed_avx512_rows<6, 4>(x + i, ld_x, d, pt, ld_pt, j_begin, j_end, out + i, ld_out);
  }
  for (; i + 4 <= n; i += 4) {
    gemm_transposed_avx512_rows<4, 4>(x + i, ld_x, d, pt, ld_pt, j_begin, j_end, out + i, ld_out);
  }
  for (; i + 2 <= n; i += 2) {
    gemm_transposed_avx512_rows<2, 8>(x + i, ld_x, d, pt, ld_pt, j_begin, j_end, out + i, ld_out);
  }
  for (; i < n; ++i) {
    gemm_transposed_avx512_rows<1, 8>(x + i, ld_x, d, pt, ld_pt, j_begin, j_end, out + i, ld_out);
  }
}

// AVX2: rows in as few passes as the registers allow, up to 8 rows each
// (16 accumulators of 2 vectors; past that they spill), the rows shared out
// evenly. Each pass reads all of P, and at d = 64, m = 512 (256 KB) that
// read, more than the FMAs, bounds it on a Zen 3 with 512 KB of L2: 10 rows
// as 4 + 4 + 2 read P three times, as 5 + 5 twice (product 49 -> 34 us,
// bench/cpp/few_rows_bench.cpp). Fewer rows take more columns per vector,
// for at least 8 independent chains (FMA latency 4, two units).
template <std::size_t R>
KITCHEN_TARGET_GRAM_AVX2 inline void gemm_transposed_avx2_pass(
    const double* x, std::size_t ld_x, std::size_t d, const double* pt, std::size_t ld_pt,
    std::size_t j_begin, std::size_t j_end, double* out, std::size_t ld_out) {
  constexpr std::size_t V = R <= 2 ? 4 : R == 3 ? 3 : 2;
  gemm_transposed_avx2_rows<R, V>(x, ld_x, d, pt, ld_pt, j_begin, j_end, out, ld_out);
}

KITCHEN_TARGET_GRAM_AVX2 inline void gemm_transposed_avx2_passes(
    const double* x, std::size_t n, std::size_t ld_x, std::size_t d, const double* pt,
    std::size_t ld_pt, std::size_t j_begin, std::size_t j_end, double* out, std::size_t ld_out) {
  constexpr std::size_t most = 8;
  const std::size_t passes = (n + most - 1) / most;
  for (std::size_t pass = 0, i = 0; pass < passes; ++pass) {
    const std::size_t rows = (n - i) / (passes - pass) + ((n - i) % (passes - pass) != 0);
    const double* xi = x + i;
    double* oi = out + i;
#define KITCHEN_AVX2_PASS(R) \
  case R: gemm_transposed_avx2_pass<R>(xi, ld_x, d, pt, ld_pt, j_begin, j_end, oi, ld_out); break;
    switch (rows) {
      KITCHEN_AVX2_PASS(1) KITCHEN_AVX2_PASS(2) KITCHEN_AVX2_PASS(3) KITCHEN_AVX2_PASS(4)
      KITCHEN_AVX2_PASS(5) KITCHEN_AVX2_PASS(6) KITCHEN_AVX2_PASS(7) KITCHEN_AVX2_PASS(8)
      default: break;
    }
#undef KITCHEN_AVX2_PASS
    i += rows;
  }
}

#endif  // KITCHEN_X86_SIMD

}  // namespace detail

// gemm_direct_columns() from P transposed (see gemm_transposed_max_rows),
// for a `level` of avx2 or avx512; bitwise equal on both.
inline void gemm_transposed_columns(const double* x, std::size_t n, std::size_t ld_x,
                                    std::size_t d, const double* pt, std::size_t ld_pt,
                                    std::size_t j_begin, std::size_t j_end, double* out,
                                    std::size_t ld_out, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512) {
    detail::gemm_transposed_avx512_passes(x, n, ld_x, d, pt, ld_pt, j_begin, j_end, out, ld_out);
  } else {
    detail::gemm_transposed_avx2_passes(x, n, ld_x, d, pt, ld_pt, j_begin, j_end, out, ld_out);
  }
#else
  (void)x; (void)n; (void)ld_x; (void)d; (void)pt; (void)ld_pt; (void)j_begin; (void)j_end;
  (void)out; (void)ld_out; (void)level;
#endif
}

// A unit of work: rows [row_begin, row_end) of the output, times the strips
// [strip_begin, strip_end) of P, i.e. its columns [col_begin, col_end).
struct gemm_unit {
  std::size_t row_begin, row_end, strip_begin, strip_end, col_begin, col_end;
};

inline std::size_t gemm_n_groups(const gemm_packed_rhs& rhs) {
  return (rhs.n_strips() + gemm_group_strips - 1) / gemm_group_strips;
}

// Units are numbered block of rows by block of rows, strip group by strip
// group within each.
inline std::size_t gemm_n_units(std::size_t n, const gemm_packed_rhs& rhs) {
  return (n + gemm_block_rows - 1) / gemm_block_rows * gemm_n_groups(rhs);
}

inline gemm_unit gemm_unit_at(std::size_t unit, std::size_t n, std::size_t m,
                              const gemm_packed_rhs& rhs, simd_level level) {
  const std::size_t groups = gemm_n_groups(rhs);
  const std::size_t w = gram_strip_width(level);
  gemm_unit u;
  u.row_begin = unit / groups * gemm_block_rows;
  u.row_end = std::min(n, u.row_begin + gemm_block_rows);
  u.strip_begin = unit % groups * gemm_group_strips;
  u.strip_end = std::min(rhs.n_strips(), u.strip_begin + gemm_group_strips);
  u.col_begin = u.strip_begin * w;
  u.col_end = std::min(m, u.strip_end * w);
  return u;
}

// Writes out[rows, cols] of unit u of the product X P, for X n x d (stride
// ld_x). `level` must be the avx2 or avx512 that rhs was packed for; lhs
// holds gemm_lhs_size(level) doubles.
inline void gemm_packed_product(const double* x, std::size_t ld_x, std::size_t d,
                                const gemm_packed_rhs& rhs, std::size_t m, const gemm_unit& u,
                                simd_level level, double* lhs, double* out, std::size_t ld_out) {
#if KITCHEN_X86_SIMD
  const std::size_t rows = u.row_end - u.row_begin;
  if (level == simd_level::avx512) {
    detail::gemm_packed_unit<detail::gram_avx512>(x, ld_x, d, rhs, m, u.row_begin, rows,
                                                  u.strip_begin, u.strip_end, lhs, out, ld_out);
  } else {
    detail::gemm_packed_unit<detail::gram_avx2>(x, ld_x, d, rhs, m, u.row_begin, rows,
                                                u.strip_begin, u.strip_end, lhs, out, ld_out);
  }
#else
  (void)x; (void)ld_x; (void)d; (void)rhs; (void)m; (void)u; (void)level; (void)lhs;
  (void)out; (void)ld_out;
#endif
}

}  // namespace kitchen
