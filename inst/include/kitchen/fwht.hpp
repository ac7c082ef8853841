// Fast Walsh-Hadamard transform, Sylvester (natural) order, unnormalised:
// H_1 = 1, H_2n = [[H_n, H_n], [H_n, -H_n]].
//
// Every code path applies the radix-2 butterflies stage by stage in
// increasing stride (1, 2, 4, ..., n/2), so all paths round identically and
// results are bitwise equal whatever the instruction set.
//
// Entries: fwht(x, n, level) in place; fwht(in, out, n, level[, scale]) out
// of place, the first pass reading `in` (no copy pass) and the optional
// scaling done in the last pass; fwht_checked(in, out, n, level[, scale])
// also tests the input for NA/NaN/Inf as the first pass loads it. All give
// the bits of "copy, transform in place, multiply by scale".
//
// Kernels: fwht_avx2.hpp, fwht_avx512.hpp (x86-64 only, chosen at run time);
// how they split the stages into cache-sized passes: fwht_plan.hpp.
#pragma once

#include <algorithm>
#include <cstddef>

#include "finite.hpp"
#include "fwht_avx2.hpp"
#include "fwht_avx512.hpp"
#include "simd.hpp"

namespace kitchen {

inline bool is_power_of_two(std::size_t n) { return n != 0 && (n & (n - 1)) == 0; }

// Portable reference: in place, n a power of two.
inline void fwht_scalar(double* x, std::size_t n) {
  for (std::size_t h = 1; h < n; h <<= 1) {
    for (std::size_t i = 0; i < n; i += 2 * h) {
      for (std::size_t j = i; j < i + h; ++j) {
        const double a = x[j], b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
}

namespace detail {

// One stage of stride h from src to dst (which may be src), optionally
// multiplying the results by `scale`.
template <bool Scale>
inline void scalar_stage(const double* src, double* dst, std::size_t n, std::size_t h,
                         double scale) {
  for (std::size_t i = 0; i < n; i += 2 * h) {
    for (std::size_t j = i; j < i + h; ++j) {
      const double a = src[j], b = src[j + h];
      dst[j] = Scale ? (a + b) * scale : a + b;
      dst[j + h] = Scale ? (a - b) * scale : a - b;
    }
  }
}

}  // namespace detail

// Portable out-of-place version: out = scale * H in, the first stage reading
// `in`, the last one multiplying by `scale` (skipped when scale == 1).
// Bitwise equal to copying, fwht_scalar() in place, then multiplying.
inline void fwht_scalar(const double* in, double* out, std::size_t n, double scale = 1.0) {
  const bool scaled = scale != 1.0;
  if (n == 1) {
    out[0] = scaled ? in[0] * scale : in[0];
    return;
  }
  for (std::size_t h = 1; h < n; h <<= 1) {
    const double* src = h == 1 ? in : out;
    if (scaled && 2 * h == n) detail::scalar_stage<true>(src, out, n, h, scale);
    else detail::scalar_stage<false>(src, out, n, h, scale);
  }
}

namespace detail {

// Sizes below a kernel's minimum (a few dozen doubles) go to the scalar code.
template <bool Check, bool Scale>
inline bool fwht_dispatch(const double* in, double* out, std::size_t n, simd_level level,
                          double scale) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512 && n >= avx512_min_n)
    return fwht_avx512<Check, Scale>(in, out, n, scale);
  if (level != simd_level::scalar && n >= avx2_min_n)
    return fwht_avx2<Check, Scale>(in, out, n, scale);
#else
  (void)level;
#endif
  if (Check && !all_finite(in, n)) return false;
  fwht_scalar(in, out, n, Scale ? scale : 1.0);
  return true;
}

}  // namespace detail

// Out-of-place transform: out[0..n) = H in[0..n), n a power of two, using
// `level` (already resolved against the CPU with resolve_simd()). The first
// pass reads `in` and writes `out`, so no separate copy is needed; `in` is
// not modified. `out` may be `in` (in-place); no other overlap is allowed.
// Bitwise equal to the in-place transform of a copy, on every level.
inline void fwht(const double* in, double* out, std::size_t n, simd_level level) {
  detail::fwht_dispatch<false, false>(in, out, n, level, 1.0);
}

// In-place transform of x[0..n).
inline void fwht(double* x, std::size_t n, simd_level level) { fwht(x, x, n, level); }

// out = scale * H in, the scaling fused into the last pass: bitwise equal to
// the transform followed by multiplying each element by `scale`.
inline void fwht(const double* in, double* out, std::size_t n, simd_level level, double scale) {
  if (scale == 1.0) detail::fwht_dispatch<false, false>(in, out, n, level, 1.0);
  else detail::fwht_dispatch<false, true>(in, out, n, level, scale);
}

// As fwht(in, out, n, level, scale), also checking `in` for NA, NaN and
// +-Inf as the first pass reads it (an output overflowing to Inf is not an
// error). Returns false if `in` has a non-finite value; `out` is then
// unspecified.
inline bool fwht_checked(const double* in, double* out, std::size_t n, simd_level level,
                         double scale = 1.0) {
  if (scale == 1.0) return detail::fwht_dispatch<true, false>(in, out, n, level, 1.0);
  return detail::fwht_dispatch<true, true>(in, out, n, level, scale);
}

// Columns longer than this are transformed in pieces (as the fwht() glue
// does), so that one long column can be spread over threads and interrupted
// between pieces: 2^24 doubles (128 MB) take about 0.1-0.3 s.
constexpr std::size_t fwht_piece = std::size_t(1) << 24;

// Stages h and 2h at once (one pass over memory instead of two), in place
// on x, by ranges [begin, end) of the n / 4 quads: quad t joins elements i,
// i + h, i + 2h and i + 3h, i = (t / h) 4h + t % h, with the operations of
// stage h and then of stage 2h. The first log2(piece) stages of a long
// column are the transforms of its aligned blocks of `piece` elements; the
// stages from h = piece up, two by two, complete it with the same
// operations in the same order of stages, so the result is bitwise the
// whole transform's. Scale: stage 2h is the last, its results multiplied
// by `scale` (as in detail::scalar_stage()).
template <bool Scale>
inline void fwht_two_stages_range(double* x, std::size_t h, std::size_t begin, std::size_t end,
                                  double scale) {
  std::size_t t = begin;
  while (t < end) {
    const std::size_t k = t % h;
    const std::size_t run = std::min(h - k, end - t);
    double* __restrict__ p0 = x + (t / h) * 4 * h + k;
    double* __restrict__ p1 = p0 + h;
    double* __restrict__ p2 = p0 + 2 * h;
    double* __restrict__ p3 = p0 + 3 * h;
    for (std::size_t j = 0; j < run; ++j) {
      const double a = p0[j], b = p1[j], c = p2[j], d = p3[j];
      const double s0 = a + b, s1 = a - b, s2 = c + d, s3 = c - d;  // stage h
      p0[j] = Scale ? (s0 + s2) * scale : s0 + s2;                  // stage 2h
      p2[j] = Scale ? (s0 - s2) * scale : s0 - s2;
      p1[j] = Scale ? (s1 + s3) * scale : s1 + s3;
      p3[j] = Scale ? (s1 - s3) * scale : s1 - s3;
    }
    t += run;
  }
}

}  // namespace kitchen
