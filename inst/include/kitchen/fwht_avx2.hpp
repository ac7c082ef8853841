// AVX2 kernels for the fast Walsh-Hadamard transform (4 doubles/vector).
//
// Same structure and the same bitwise-identity argument as fwht_avx512.hpp
// (see there); only the vector width and register budget differ: 16 ymm
// registers allow fusing 3 stages (8 vectors) per pass. FMA is never used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>

#include "fwht_plan.hpp"

#define KITCHEN_TARGET_AVX2 __attribute__((target("avx2,fma")))
// For the small kernels inside loops (always called from KITCHEN_TARGET_AVX2 code).
#define KITCHEN_TARGET_AVX2_INLINE __attribute__((target("avx2,fma"), always_inline))

namespace kitchen {
namespace detail {

// Smallest n the AVX2 path handles (one 8-vector base block).
constexpr std::size_t avx2_min_n = 32;

// Stages h = 1, 2 inside one register of 4 consecutive doubles.
// s = x with partners swapped; lower lanes get x + s = a + b, upper lanes
// get s + (-x) = a - b.
KITCHEN_TARGET_AVX2 static inline __m256d avx2_stages_1_2(__m256d x) {
  const __m256d odd = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0);
  const __m256d high = _mm256_set_pd(-0.0, -0.0, 0.0, 0.0);
  __m256d s = _mm256_permute_pd(x, 0x5);  // swap neighbours (h = 1)
  x = _mm256_add_pd(s, _mm256_xor_pd(x, odd));
  s = _mm256_permute4x64_pd(x, 0x4E);  // swap 128-bit halves (h = 2)
  x = _mm256_add_pd(s, _mm256_xor_pd(x, high));
  return x;
}

KITCHEN_TARGET_AVX2 static inline void avx2_butterfly(__m256d& a, __m256d& b) {
  const __m256d sum = _mm256_add_pd(a, b);
  b = _mm256_sub_pd(a, b);
  a = sum;
}

// K stages across 2^K registers: register r pairs with r + d for d = 1, 2, ...
template <int K>
KITCHEN_TARGET_AVX2 inline void avx2_cross(__m256d* v) {
  constexpr int R = 1 << K;
#pragma GCC unroll 4
  for (int d = 1; d < R; d <<= 1) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      if ((r & d) == 0) avx2_butterfly(v[r], v[r + d]);
  }
}

// Finiteness check of the first pass and scaling of the last, as in
// avx512_extras (see there).
struct avx2_extras {
  __m256d bad;
  __m256d scale;
};

template <bool Check>
KITCHEN_TARGET_AVX2_INLINE inline __m256d avx2_load_in(const double* p, avx2_extras& e) {
  const __m256d x = _mm256_loadu_pd(p);
  if (Check) e.bad = _mm256_or_pd(e.bad, _mm256_sub_pd(x, x));
  return x;
}

template <bool Scale>
KITCHEN_TARGET_AVX2_INLINE inline __m256d avx2_scaled(__m256d x, const avx2_extras& e) {
  return Scale ? _mm256_mul_pd(x, e.scale) : x;
}

// Stages h = 1 .. 16 on 32 consecutive doubles (8 registers, 5 stages),
// read from `in` and written to `out` (which may be `in`).
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX2_INLINE inline void avx2_base(const double* in, double* out, avx2_extras& e) {
  __m256d v[8];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < 8; ++r) v[r] = avx2_stages_1_2(avx2_load_in<Check>(in + 4 * r, e));
  avx2_cross<3>(v);
#pragma GCC unroll 8
  for (std::size_t r = 0; r < 8; ++r) _mm256_storeu_pd(out + 4 * r, avx2_scaled<Scale>(v[r], e));
}
constexpr int avx2_log_base = 5;

// K fused stages on the 2^K vectors at p, p + h, p + 2h, ...; only the
// lanes whose sign bit is set in `mask` are read and written.
template <int K, bool Masked, bool Scale>
KITCHEN_TARGET_AVX2_INLINE inline void avx2_column(double* p, std::size_t h, __m256i mask,
                                                   const avx2_extras& e) {
  constexpr std::size_t R = std::size_t(1) << K;
  __m256d v[R];
#pragma GCC unroll 16
  for (std::size_t r = 0; r < R; ++r)
    v[r] = Masked ? _mm256_maskload_pd(p + r * h, mask) : _mm256_loadu_pd(p + r * h);
  avx2_cross<K>(v);
#pragma GCC unroll 16
  for (std::size_t r = 0; r < R; ++r) {
    if (Masked) _mm256_maskstore_pd(p + r * h, mask, avx2_scaled<Scale>(v[r], e));
    else _mm256_storeu_pd(p + r * h, avx2_scaled<Scale>(v[r], e));
  }
}

// K fused stages h, 2h, ..., 2^(K-1) h over x[0..n); h a multiple of 4.
// As in avx512_pass(), the vectors are shifted to 32-byte boundaries with a
// masked head and tail, so no access straddles a cache line.
template <int K, bool Scale>
KITCHEN_TARGET_AVX2 inline void avx2_pass(double* x, std::size_t n, std::size_t h,
                                          const avx2_extras& e) {
  constexpr std::size_t R = std::size_t(1) << K;
  const int mis = int((reinterpret_cast<std::uintptr_t>(x) / sizeof(double)) % 4);
  const __m256i lane = _mm256_set_epi64x(3, 2, 1, 0);
  const __m256i head = _mm256_cmpgt_epi64(lane, _mm256_set1_epi64x(mis - 1));  // lane >= mis
  const __m256i tail = _mm256_cmpgt_epi64(_mm256_set1_epi64x(mis), lane);      // lane < mis
  const __m256i all = _mm256_set1_epi64x(-1);
  for (std::size_t i = 0; i < n; i += h * R) {
    double* p = x + i;
    if (mis == 0) {
      for (std::size_t j = 0; j < h; j += 4) avx2_column<K, false, Scale>(p + j, h, all, e);
    } else {
      p -= mis;  // 32-byte aligned; lanes below `mis` belong to the previous block
      avx2_column<K, true, Scale>(p, h, head, e);
      for (std::size_t j = 4; j < h; j += 4) avx2_column<K, false, Scale>(p + j, h, all, e);
      avx2_column<K, true, Scale>(p + h, h, tail, e);
    }
  }
}

constexpr int avx2_max_fused = 3;

template <bool Scale>
KITCHEN_TARGET_AVX2 inline void avx2_pass_k(double* x, std::size_t n, std::size_t h, int k,
                                            const avx2_extras& e) {
  switch (k) {
    case 1: avx2_pass<1, Scale>(x, n, h, e); break;
    case 2: avx2_pass<2, Scale>(x, n, h, e); break;
    default: avx2_pass<3, Scale>(x, n, h, e); break;
  }
}

// Whole transform of a block that fits in L1: base blocks (the first pass,
// from `in` to `out`), then the remaining stages over `out`. Scale applies
// to the last pass only.
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX2 inline void avx2_leaf(const double* in, double* out, std::size_t n,
                                          avx2_extras& e) {
  const int total = log2_exact(n);
  if (total == avx2_log_base) {
    avx2_base<Check, Scale>(in, out, e);
    return;
  }
  for (std::size_t i = 0; i < n; i += std::size_t(1) << avx2_log_base)
    avx2_base<Check, false>(in + i, out + i, e);
  int done = avx2_log_base;
  while (done < total) {
    const int k = split_stages(total - done, avx2_max_fused);
    if (done + k == total) avx2_pass_k<Scale>(out, n, std::size_t(1) << done, k, e);
    else avx2_pass_k<false>(out, n, std::size_t(1) << done, k, e);
    done += k;
  }
}

// Cache-blocked recursion, as in avx512_recurse().
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX2 inline void avx2_recurse(const double* in, double* out, std::size_t n,
                                             avx2_extras& e) {
  const int total = log2_exact(n);
  if (total <= leaf_log2) {
    avx2_leaf<Check, Scale>(in, out, n, e);
    return;
  }
  const int k = split_stages(total - leaf_log2, avx2_max_fused);
  const std::size_t sub = n >> k;
  for (std::size_t b = 0; b < n; b += sub) avx2_recurse<Check, false>(in + b, out + b, sub, e);
  avx2_pass_k<Scale>(out, n, sub, k, e);
}

// As fwht_avx512(): out = scale * H in, n a power of two, n >= avx2_min_n.
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX2 inline bool fwht_avx2(const double* in, double* out, std::size_t n,
                                          double scale) {
  avx2_extras e{_mm256_setzero_pd(), _mm256_set1_pd(scale)};
  avx2_recurse<Check, Scale>(in, out, n, e);
  return !Check || _mm256_movemask_pd(_mm256_cmp_pd(e.bad, e.bad, _CMP_UNORD_Q)) == 0;
}

}  // namespace detail
}  // namespace kitchen

#endif  // KITCHEN_X86_SIMD
