// exp() of an array of arguments at most 0, in place: the softmax of
// logistic_pass() (links minus their row's largest). With 6 classes it
// takes 6 exp() per row against 2 x 6 x D multiply-adds for the products,
// and libm's exp() one at a time cost as much as a sixth of a pass.
//
// Algorithm (AVX2 + FMA, 4 doubles per vector):
//   k = nearest integer to x / ln 2 (via the 1.5 * 2^52 rounding constant,
//   whose low mantissa bits then hold k), r = (x - k c1) - k c2 with
//   ln 2 = c1 + c2 (fdlibm's ln2_hi, of 32 bits so that k c1 is exact, and
//   ln2_lo), so |r| <= ln(2) / 2; exp(r) by its Taylor series to degree 13
//   (truncation below 5e-18 relative) in Horner's form; times 2^k built in
//   the exponent bits. Within 2 ulp of std::exp for x in [-708, 0]
//   (tested); below -708 the result (below 3.3e-308, subnormal or 0 for
//   std::exp) is 0, and so is exp(-Inf); NaN stays NaN. Arguments above 0
//   are not supported.
// Determinism: an element's result depends on its value and the level only
// (tails go through the same vector code on a padded buffer). The scalar
// level is std::exp itself.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstring>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>

#define KITCHEN_TARGET_EXP_AVX2 __attribute__((target("avx2,fma")))
#define KITCHEN_TARGET_EXP_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline))

namespace kitchen {
namespace detail {
namespace exp_const {

constexpr double log2e = 1.44269504088896338700e+00;
constexpr double round_magic = 6755399441055744.0;       // 1.5 * 2^52
constexpr double ln2_hi = 6.93147180369123816490e-01;    // 0x3FE62E42FEE00000
constexpr double ln2_lo = 1.90821492927058770002e-10;    // 0x3DEA39EF35793C76
constexpr double smallest = -708.0;                      // below: 0
// 1 / n!, n = 13 .. 2.
constexpr double taylor[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
                             1.0 / 3628800.0,    1.0 / 362880.0,    1.0 / 40320.0,
                             1.0 / 5040.0,       1.0 / 720.0,       1.0 / 120.0,
                             1.0 / 24.0,         1.0 / 6.0,         0.5};

}  // namespace exp_const

KITCHEN_TARGET_EXP_AVX2_INLINE inline __m256d exp_nonpositive_kernel(__m256d x) {
  namespace K = exp_const;
  const __m256d magic = _mm256_set1_pd(K::round_magic);
  const __m256d y = _mm256_fmadd_pd(x, _mm256_set1_pd(K::log2e), magic);
  const __m256d k = _mm256_sub_pd(y, magic);
  __m256d r = _mm256_fnmadd_pd(k, _mm256_set1_pd(K::ln2_hi), x);
  r = _mm256_fnmadd_pd(k, _mm256_set1_pd(K::ln2_lo), r);
  __m256d p = _mm256_set1_pd(K::taylor[0]);
  for (int i = 1; i < 12; ++i) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(K::taylor[i]));
  p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
  p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(1.0));
  // 2^k: y's bits minus the constant's are k (a 64-bit integer); its
  // exponent field is k + 1023, at least 1 for x >= -708.
  const __m256i kbits = _mm256_sub_epi64(_mm256_castpd_si256(y), _mm256_castpd_si256(magic));
  const __m256i scale = _mm256_slli_epi64(_mm256_add_epi64(kbits, _mm256_set1_epi64x(1023)), 52);
  const __m256d out = _mm256_mul_pd(p, _mm256_castsi256_pd(scale));
  // x < -708 (and -Inf) -> 0; NaN compares false and keeps its NaN.
  const __m256d tiny = _mm256_cmp_pd(x, _mm256_set1_pd(K::smallest), _CMP_LT_OQ);
  return _mm256_andnot_pd(tiny, out);
}

KITCHEN_TARGET_EXP_AVX2 inline void exp_nonpositive_avx2(double* x, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(x + i, exp_nonpositive_kernel(_mm256_loadu_pd(x + i)));
  const std::size_t rest = n - i;
  if (rest) {
    double tail[4] = {0.0, 0.0, 0.0, 0.0};
    std::memcpy(tail, x + i, rest * sizeof(double));
    _mm256_storeu_pd(tail, exp_nonpositive_kernel(_mm256_loadu_pd(tail)));
    std::memcpy(x + i, tail, rest * sizeof(double));
  }
}

}  // namespace detail
}  // namespace kitchen

#endif  // KITCHEN_X86_SIMD

namespace kitchen {

// x[i] = exp(x[i]) for i < n, every x[i] <= 0 (or NaN): see above.
inline void exp_nonpositive(double* x, std::size_t n, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level != simd_level::scalar) {
    detail::exp_nonpositive_avx2(x, n);
    return;
  }
#endif
  (void)level;
  for (std::size_t i = 0; i < n; ++i) x[i] = std::exp(x[i]);
}

}  // namespace kitchen
