// AVX-512 kernels for sincos.hpp (8 doubles per vector). Included by
// sincos.hpp after the constants and the scalar reference; see there for the
// algorithm, accuracy and determinism. Instructions: AVX-512F only (the
// target also names AVX-512DQ, like the rest of the package, which checks
// for both before choosing this level).
//
// Tails: the last n % 8 elements go through the same vector code with a
// masked load (inactive lanes compute on zeros) and a masked store.
#pragma once

#ifndef KITCHEN_SINCOS_CORE
#error "include kitchen/sincos.hpp, not sincos_avx512.hpp"
#endif

#include <cstddef>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>

#define KITCHEN_TARGET_SINCOS_AVX512 __attribute__((target("avx512f,avx512dq")))
#define KITCHEN_TARGET_SINCOS_AVX512_INLINE \
  __attribute__((target("avx512f,avx512dq"), always_inline))

namespace kitchen {
namespace detail {

// cos t and sin t (sin only if Both) of 8 arguments, |t| <= max_arg; other
// lanes give garbage (patched by the caller). Only explicit FMA intrinsics:
// no multiply feeds an add, so nothing is left for contraction.
template <bool Both>
KITCHEN_TARGET_SINCOS_AVX512_INLINE inline void avx512_sincos_kernel(__m512d t, __m512d& c,
                                                                     __m512d& s) {
  namespace K = sincos_const;
  const __m512d magic = _mm512_set1_pd(K::round_magic);
  const __m512d y = _mm512_fmadd_pd(t, _mm512_set1_pd(K::two_over_pi), magic);
  const __m512d k = _mm512_sub_pd(y, magic);
  __m512d r = _mm512_fnmadd_pd(k, _mm512_set1_pd(K::pio2_1), t);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(K::pio2_2), r);
  r = _mm512_fnmadd_pd(k, _mm512_set1_pd(K::pio2_3), r);
  const __m512d z = _mm512_mul_pd(r, r);

  __m512d ps = _mm512_fmadd_pd(z, _mm512_set1_pd(K::S6), _mm512_set1_pd(K::S5));
  ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(K::S4));
  ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(K::S3));
  ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(K::S2));
  ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(K::S1));
  ps = _mm512_fmadd_pd(z, ps, _mm512_set1_pd(1.0));
  const __m512d sr = _mm512_mul_pd(r, ps);  // r (1 + z P): sin(-0) = -0

  __m512d pc = _mm512_fmadd_pd(z, _mm512_set1_pd(K::C6), _mm512_set1_pd(K::C5));
  pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(K::C4));
  pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(K::C3));
  pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(K::C2));
  pc = _mm512_fmadd_pd(z, pc, _mm512_set1_pd(K::C1));
  const __m512d c0 = _mm512_fnmadd_pd(_mm512_set1_pd(0.5), z, _mm512_set1_pd(1.0));
  const __m512d cr = _mm512_fmadd_pd(_mm512_mul_pd(z, z), pc, c0);

  // Low bits of y's mantissa: q = k mod 4. q odd: swap; sin < 0 for q = 2, 3;
  // cos < 0 for q = 1, 2 (bit 1 of q + 1).
  const __m512i q = _mm512_castpd_si512(y);
  const __mmask8 swap = _mm512_test_epi64_mask(q, _mm512_set1_epi64(1));
  const __m512i sign = _mm512_set1_epi64(static_cast<long long>(0x8000000000000000ULL));
  const __m512i q1 = _mm512_add_epi64(q, _mm512_set1_epi64(1));
  // 0x78: a ^ (b & c). (The all-lanes _mm512_mask_slli is the plain
  // instruction; gcc 12's unmasked wrapper trips -Wmaybe-uninitialized.)
  c = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(
      _mm512_castpd_si512(_mm512_mask_blend_pd(swap, cr, sr)), _mm512_mask_slli_epi64(q1, 0xFF, q1, 62), sign,
      0x78));
  if (Both) {
    s = _mm512_castsi512_pd(_mm512_ternarylogic_epi64(
        _mm512_castpd_si512(_mm512_mask_blend_pd(swap, sr, cr)), _mm512_mask_slli_epi64(q, 0xFF, q, 62), sign,
        0x78));
  }
}

// One vector: the lanes in `active` of in[0..8) are read and of c_out, s_out
// written (s_out unused for cosine only). Inactive lanes compute on zeros.
template <bool Both>
KITCHEN_TARGET_SINCOS_AVX512_INLINE inline void avx512_sincos_step(const double* in,
                                                                   __mmask8 active,
                                                                   __m512d shift, __m512d scale,
                                                                   double scale_d, double* c_out,
                                                                   double* s_out) {
  const __m512d t = _mm512_add_pd(_mm512_maskz_loadu_pd(active, in), shift);
  __m512d c, s = _mm512_setzero_pd();
  avx512_sincos_kernel<Both>(t, c, s);
  c = _mm512_mul_pd(c, scale);
  if (Both) s = _mm512_mul_pd(s, scale);
  const __mmask8 ok =
      _mm512_cmp_pd_mask(_mm512_abs_pd(t), _mm512_set1_pd(sincos_const::max_arg), _CMP_LE_OQ);
  if (__builtin_expect((ok & active) != active, 0)) {
    double tb[8], cb[8], sb[8];
    _mm512_storeu_pd(tb, t);
    _mm512_storeu_pd(cb, c);
    _mm512_storeu_pd(sb, s);
    sincos_patch_lanes(tb, scale_d, cb, Both ? sb : nullptr, static_cast<unsigned>(ok | ~active),
                       8);
    c = _mm512_loadu_pd(cb);
    s = _mm512_loadu_pd(sb);
  }
  _mm512_mask_storeu_pd(c_out, active, c);
  if (Both) _mm512_mask_storeu_pd(s_out, active, s);
}

template <bool Both>
KITCHEN_TARGET_SINCOS_AVX512 inline void avx512_sincos_array(const double* in, double shift_,
                                                             double scale_, double* c_out,
                                                             double* s_out, std::size_t n) {
  const __m512d shift = _mm512_set1_pd(shift_), scale = _mm512_set1_pd(scale_);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    avx512_sincos_step<Both>(in + i, 0xFF, shift, scale, scale_, c_out + i,
                             Both ? s_out + i : nullptr);
  if (i < n) {
    const __mmask8 active = static_cast<__mmask8>((1u << (n - i)) - 1u);
    avx512_sincos_step<Both>(in + i, active, shift, scale, scale_, c_out + i,
                             Both ? s_out + i : nullptr);
  }
}

KITCHEN_TARGET_SINCOS_AVX512 inline void cos_shift_scale_avx512(const double* in, double shift,
                                                                double scale, double* out,
                                                                std::size_t n) {
  avx512_sincos_array<false>(in, shift, scale, out, nullptr, n);
}

KITCHEN_TARGET_SINCOS_AVX512 inline void sincos_shift_scale_avx512(const double* in,
                                                                   double shift, double scale,
                                                                   double* cos_out,
                                                                   double* sin_out,
                                                                   std::size_t n) {
  avx512_sincos_array<true>(in, shift, scale, cos_out, sin_out, n);
}

}  // namespace detail
}  // namespace kitchen

#endif  // KITCHEN_X86_SIMD
