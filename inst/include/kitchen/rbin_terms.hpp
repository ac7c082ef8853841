// The inner loop of random binning: for values x[0..len) of one input
// dimension, in one grid, add bin(x) * mult to each row's key sum, where
// bin(x) = ceil(clamp(x a - b)) as a 64-bit integer and sums wrap mod 2^64.
//
// Every level computes the same bits: x a - b is a multiply then a subtract
// (never fused), the clamp to [-2^50, 2^50] (NaN goes to -2^50) and the
// ceiling are exact, and integer products wrap identically. So a map built
// on one machine finds the same bins on any other.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>
#endif

namespace kitchen {

// Bin numbers are clamped here: 2^50 pitches from the origin is far beyond
// any real data, and keeps every level's integer conversion exact.
constexpr double rbin_clamp = 1125899906842624.0;  // 2^50

inline std::int64_t rbin_bin(double x, double a, double b) {
  double t = unfused(x * a) - b;
  t = t >= -rbin_clamp ? t : -rbin_clamp;
  t = t <= rbin_clamp ? t : rbin_clamp;
  return static_cast<std::int64_t>(std::ceil(t));
}

inline void rbin_add_terms_scalar(const double* x, std::size_t len, double a, double b,
                                  std::uint64_t mult, std::uint64_t* sums) {
  for (std::size_t i = 0; i < len; ++i) {
    sums[i] += static_cast<std::uint64_t>(rbin_bin(x[i], a, b)) * mult;
  }
}

#if KITCHEN_X86_SIMD

// AVX2: the ceiling by vroundpd; the integer through the 1.5 * 2^52 trick
// (exact for |t| <= 2^51); the 64-bit product from three 32 x 32 products.
__attribute__((target("avx2"))) inline void rbin_add_terms_avx2(
    const double* x, std::size_t len, double a, double b, std::uint64_t mult,
    std::uint64_t* sums) {
  const __m256d va = _mm256_set1_pd(a), vb = _mm256_set1_pd(b);
  const __m256d lo = _mm256_set1_pd(-rbin_clamp), hi = _mm256_set1_pd(rbin_clamp);
  const __m256d magic = _mm256_set1_pd(6755399441055744.0);  // 1.5 * 2^52
  const __m256i magic_bits = _mm256_castpd_si256(magic);
  const __m256i m = _mm256_set1_epi64x(static_cast<long long>(mult));
  const __m256i m_hi = _mm256_srli_epi64(m, 32);
  std::size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    __m256d scaled = _mm256_mul_pd(_mm256_loadu_pd(x + i), va);
    keep_unfused(scaled);  // in place: a vector returned by value warns under -Wpsabi
    __m256d t = _mm256_sub_pd(scaled, vb);
    t = _mm256_min_pd(_mm256_max_pd(t, lo), hi);  // max(NaN, lo) is lo
    t = _mm256_round_pd(t, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    const __m256i q = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(t, magic)), magic_bits);
    const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(q, 32), m),
                                           _mm256_mul_epu32(q, m_hi));
    const __m256i prod = _mm256_add_epi64(_mm256_mul_epu32(q, m), _mm256_slli_epi64(cross, 32));
    __m256i* s = reinterpret_cast<__m256i*>(sums + i);
    _mm256_storeu_si256(s, _mm256_add_epi64(_mm256_loadu_si256(s), prod));
  }
  rbin_add_terms_scalar(x + i, len - i, a, b, mult, sums + i);
}

// AVX-512 (F + DQ): ceiling, conversion and 64-bit product in one
// instruction each.
__attribute__((target("avx512f,avx512dq"))) inline void rbin_add_terms_avx512(
    const double* x, std::size_t len, double a, double b, std::uint64_t mult,
    std::uint64_t* sums) {
  const __m512d va = _mm512_set1_pd(a), vb = _mm512_set1_pd(b);
  const __m512d lo = _mm512_set1_pd(-rbin_clamp), hi = _mm512_set1_pd(rbin_clamp);
  const __m512i m = _mm512_set1_epi64(static_cast<long long>(mult));
  std::size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    __m512d scaled = _mm512_mul_pd(_mm512_loadu_pd(x + i), va);
    keep_unfused(scaled);
    __m512d t = _mm512_sub_pd(scaled, vb);
    t = _mm512_min_pd(_mm512_max_pd(t, lo), hi);
    t = _mm512_roundscale_pd(t, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC);
    const __m512i prod = _mm512_mullo_epi64(_mm512_cvttpd_epi64(t), m);
    _mm512_storeu_si512(sums + i, _mm512_add_epi64(_mm512_loadu_si512(sums + i), prod));
  }
  rbin_add_terms_scalar(x + i, len - i, a, b, mult, sums + i);
}

#endif

inline void rbin_add_terms(const double* x, std::size_t len, double a, double b,
                           std::uint64_t mult, std::uint64_t* sums, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512) return rbin_add_terms_avx512(x, len, a, b, mult, sums);
  if (level == simd_level::avx2) return rbin_add_terms_avx2(x, len, a, b, mult, sums);
#endif
  (void)level;
  rbin_add_terms_scalar(x, len, a, b, mult, sums);
}

}  // namespace kitchen
