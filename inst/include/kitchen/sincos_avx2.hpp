// AVX2 + FMA kernels for sincos.hpp (4 doubles per vector). Included by
// sincos.hpp after the constants and the scalar reference; see there for the
// algorithm, accuracy and determinism. Instructions: AVX, AVX2 (64-bit
// integer shifts/adds) and FMA only.
//
// Tails: the last n % 4 elements are copied to a zero-padded 4-double
// buffer and go through the same vector code.
#pragma once

#ifndef KITCHEN_SINCOS_CORE
#error "include kitchen/sincos.hpp, not sincos_avx2.hpp"
#endif

#include <cstddef>
#include <cstring>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>

#define KITCHEN_TARGET_SINCOS_AVX2 __attribute__((target("avx2,fma")))
#define KITCHEN_TARGET_SINCOS_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline))

namespace kitchen {
namespace detail {

// cos t and sin t (sin only if Both) of 4 arguments, |t| <= max_arg; other
// lanes give garbage (patched by the caller). Only explicit FMA intrinsics:
// no multiply feeds an add, so nothing is left for contraction.
template <bool Both>
KITCHEN_TARGET_SINCOS_AVX2_INLINE inline void avx2_sincos_kernel(__m256d t, __m256d& c,
                                                                 __m256d& s) {
  namespace K = sincos_const;
  const __m256d magic = _mm256_set1_pd(K::round_magic);
  const __m256d y = _mm256_fmadd_pd(t, _mm256_set1_pd(K::two_over_pi), magic);
  const __m256d k = _mm256_sub_pd(y, magic);
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(K::pio2_1), t);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(K::pio2_2), r);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(K::pio2_3), r);
  const __m256d z = _mm256_mul_pd(r, r);

  __m256d ps = _mm256_fmadd_pd(z, _mm256_set1_pd(K::S6), _mm256_set1_pd(K::S5));
  ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(K::S4));
  ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(K::S3));
  ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(K::S2));
  ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(K::S1));
  ps = _mm256_fmadd_pd(z, ps, _mm256_set1_pd(1.0));
  const __m256d sr = _mm256_mul_pd(r, ps);  // r (1 + z P): sin(-0) = -0

  __m256d pc = _mm256_fmadd_pd(z, _mm256_set1_pd(K::C6), _mm256_set1_pd(K::C5));
  pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(K::C4));
  pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(K::C3));
  pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(K::C2));
  pc = _mm256_fmadd_pd(z, pc, _mm256_set1_pd(K::C1));
  const __m256d c0 = _mm256_fnmadd_pd(_mm256_set1_pd(0.5), z, _mm256_set1_pd(1.0));
  const __m256d cr = _mm256_fmadd_pd(_mm256_mul_pd(z, z), pc, c0);

  // Low bits of y's mantissa: q = k mod 4. q odd: swap; sin < 0 for q = 2, 3;
  // cos < 0 for q = 1, 2 (bit 1 of q + 1).
  const __m256i q = _mm256_castpd_si256(y);
  const __m256d swap = _mm256_castsi256_pd(_mm256_slli_epi64(q, 63));  // blendv reads the sign bit
  const __m256d sign = _mm256_set1_pd(-0.0);
  const __m256i q1 = _mm256_add_epi64(q, _mm256_set1_epi64x(1));
  const __m256d neg_c = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64(q1, 62)), sign);
  c = _mm256_xor_pd(_mm256_blendv_pd(cr, sr, swap), neg_c);
  if (Both) {
    const __m256d neg_s = _mm256_and_pd(_mm256_castsi256_pd(_mm256_slli_epi64(q, 62)), sign);
    s = _mm256_xor_pd(_mm256_blendv_pd(sr, cr, swap), neg_s);
  }
}

// One vector: reads 4 inputs at `in`, writes 4 outputs; `s` null for cosine
// only. Used for the full vectors and (on a padded buffer) for the tail.
template <bool Both>
KITCHEN_TARGET_SINCOS_AVX2_INLINE inline void avx2_sincos_step(const double* in, __m256d shift,
                                                               __m256d scale, double scale_d,
                                                               double* c_out, double* s_out) {
  const __m256d t = _mm256_add_pd(_mm256_loadu_pd(in), shift);
  __m256d c, s = _mm256_setzero_pd();
  avx2_sincos_kernel<Both>(t, c, s);
  c = _mm256_mul_pd(c, scale);
  if (Both) s = _mm256_mul_pd(s, scale);
  const __m256d abs_t = _mm256_andnot_pd(_mm256_set1_pd(-0.0), t);
  const int ok = _mm256_movemask_pd(
      _mm256_cmp_pd(abs_t, _mm256_set1_pd(sincos_const::max_arg), _CMP_LE_OQ));
  if (__builtin_expect(ok != 0xF, 0)) {
    double tb[4], cb[4], sb[4];
    _mm256_storeu_pd(tb, t);
    _mm256_storeu_pd(cb, c);
    _mm256_storeu_pd(sb, s);
    sincos_patch_lanes(tb, scale_d, cb, Both ? sb : nullptr, static_cast<unsigned>(ok), 4);
    c = _mm256_loadu_pd(cb);
    s = _mm256_loadu_pd(sb);
  }
  _mm256_storeu_pd(c_out, c);
  if (Both) _mm256_storeu_pd(s_out, s);
}

template <bool Both>
KITCHEN_TARGET_SINCOS_AVX2 inline void avx2_sincos_array(const double* in, double shift_,
                                                         double scale_, double* c_out,
                                                         double* s_out, std::size_t n) {
  const __m256d shift = _mm256_set1_pd(shift_), scale = _mm256_set1_pd(scale_);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    avx2_sincos_step<Both>(in + i, shift, scale, scale_, c_out + i, Both ? s_out + i : nullptr);
  const std::size_t rest = n - i;
  if (rest) {
    double tin[4] = {0.0, 0.0, 0.0, 0.0}, tc[4], ts[4];
    std::memcpy(tin, in + i, rest * sizeof(double));
    avx2_sincos_step<Both>(tin, shift, scale, scale_, tc, ts);
    std::memcpy(c_out + i, tc, rest * sizeof(double));
    if (Both) std::memcpy(s_out + i, ts, rest * sizeof(double));
  }
}

KITCHEN_TARGET_SINCOS_AVX2 inline void cos_shift_scale_avx2(const double* in, double shift,
                                                            double scale, double* out,
                                                            std::size_t n) {
  avx2_sincos_array<false>(in, shift, scale, out, nullptr, n);
}

KITCHEN_TARGET_SINCOS_AVX2 inline void sincos_shift_scale_avx2(const double* in, double shift,
                                                               double scale, double* cos_out,
                                                               double* sin_out, std::size_t n) {
  avx2_sincos_array<true>(in, shift, scale, cos_out, sin_out, n);
}

}  // namespace detail
}  // namespace kitchen

#endif  // KITCHEN_X86_SIMD
