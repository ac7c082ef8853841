// AVX-512 kernels for the fast Walsh-Hadamard transform (8 doubles/vector).
//
// Compiled with the portable flags R uses: the wider instruction set is only
// enabled inside functions carrying KITCHEN_TARGET_AVX512, and fwht() only
// calls fwht_avx512() after the CPU said it supports AVX-512F/DQ.
//
// Bitwise identity with fwht_scalar(): every output is produced by the same
// radix-2 butterflies (a + b, a - b) on the same inputs, stage by stage in
// increasing stride. We only reorder work within a stage, fuse consecutive
// stages in registers and block the stages for the cache. No FMA.
// (The in-register stages compute a - b as a + (-b): IEEE defines
// subtraction that way, so the bits are the same; a + b == b + a exactly.
// Only NaN outputs may differ from the scalar code, in sign or payload.)
//
// Memory: no alignment required (R gives 16 bytes at best, and matrix
// columns start at any 8-byte offset). The base blocks use unaligned
// accesses; the strided passes realign themselves (see avx512_pass).
#pragma once

#include <cstddef>
#include <cstdint>

#include "simd.hpp"

#if KITCHEN_X86_SIMD
#include <immintrin.h>

#include "fwht_plan.hpp"

#define KITCHEN_TARGET_AVX512 __attribute__((target("avx512f,avx512dq")))
// For the small kernels inside loops (always called from KITCHEN_TARGET_AVX512 code).
#define KITCHEN_TARGET_AVX512_INLINE __attribute__((target("avx512f,avx512dq"), always_inline))

namespace kitchen {
namespace detail {

// Smallest n the AVX-512 path handles (one 8-vector base block).
constexpr std::size_t avx512_min_n = 64;

// Stages h = 1, 2, 4 inside one register of 8 consecutive doubles.
// For each stage: s = x with partners swapped; lower lanes get x + s = a + b,
// upper lanes get s + (-x) = a - b.
// (The all-lanes _mm512_mask_* shuffles are the plain instructions; gcc 12's
// unmasked wrappers trip -Wuninitialized on their internal undefined value.)
KITCHEN_TARGET_AVX512 static inline __m512d avx512_stages_1_2_4(__m512d x) {
  const __m512d sign = _mm512_set1_pd(-0.0);
  // h = 1: swap neighbours
  __m512d s = _mm512_mask_permute_pd(x, 0xFF, x, 0x55);
  x = _mm512_add_pd(s, _mm512_mask_xor_pd(x, 0xAA, x, sign));
  // h = 2: swap pairs within each 256-bit half
  s = _mm512_mask_permutex_pd(x, 0xFF, x, 0x4E);
  x = _mm512_add_pd(s, _mm512_mask_xor_pd(x, 0xCC, x, sign));
  // h = 4: swap the 256-bit halves
  s = _mm512_mask_shuffle_f64x2(x, 0xFF, x, x, 0x4E);
  x = _mm512_add_pd(s, _mm512_mask_xor_pd(x, 0xF0, x, sign));
  return x;
}

KITCHEN_TARGET_AVX512 static inline void avx512_butterfly(__m512d& a, __m512d& b) {
  const __m512d sum = _mm512_add_pd(a, b);
  b = _mm512_sub_pd(a, b);
  a = sum;
}

// K stages across 2^K registers: register r pairs with r + d for d = 1, 2, ...
template <int K>
KITCHEN_TARGET_AVX512 inline void avx512_cross(__m512d* v) {
  constexpr int R = 1 << K;
#pragma GCC unroll 4
  for (int d = 1; d < R; d <<= 1) {
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r)
      if ((r & d) == 0) avx512_butterfly(v[r], v[r + d]);
  }
}

// What the out-of-place transform does besides the butterflies: Check
// accumulates a non-finite test of every input value in its first pass
// (x - x is +0 for finite x, NaN for NA/NaN/+-Inf; the NaNs survive the OR),
// Scale multiplies every output by a constant in its last pass. Both leave
// the butterflies untouched, so the results stay bitwise those of the plain
// transform (followed by the multiplication).
struct avx512_extras {
  __m512d bad;
  __m512d scale;
};

template <bool Check>
KITCHEN_TARGET_AVX512_INLINE inline __m512d avx512_load_in(const double* p, avx512_extras& e) {
  const __m512d x = _mm512_loadu_pd(p);
  if (Check) e.bad = _mm512_or_pd(e.bad, _mm512_sub_pd(x, x));
  return x;
}

template <bool Scale>
KITCHEN_TARGET_AVX512_INLINE inline __m512d avx512_scaled(__m512d x, const avx512_extras& e) {
  return Scale ? _mm512_mul_pd(x, e.scale) : x;
}

// Stages h = 1 .. 64 on 128 consecutive doubles (16 registers, 7 stages),
// read from `in` and written to `out` (which may be `in`).
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX512_INLINE inline void avx512_base(const double* in, double* out,
                                                     avx512_extras& e) {
  __m512d v[16];
#pragma GCC unroll 16
  for (std::size_t r = 0; r < 16; ++r)
    v[r] = avx512_stages_1_2_4(avx512_load_in<Check>(in + 8 * r, e));
  avx512_cross<4>(v);
#pragma GCC unroll 16
  for (std::size_t r = 0; r < 16; ++r) _mm512_storeu_pd(out + 8 * r, avx512_scaled<Scale>(v[r], e));
}
constexpr int avx512_log_base = 7;

// K fused stages on the 2^K vectors at p, p + h, p + 2h, ...; only the
// lanes in `mask` are read and written (the others compute on zeros).
template <int K, bool Masked, bool Scale>
KITCHEN_TARGET_AVX512_INLINE inline void avx512_column(double* p, std::size_t h, __mmask8 mask,
                                                       const avx512_extras& e) {
  constexpr std::size_t R = std::size_t(1) << K;
  __m512d v[R];
#pragma GCC unroll 16
  for (std::size_t r = 0; r < R; ++r)
    v[r] = Masked ? _mm512_maskz_loadu_pd(mask, p + r * h) : _mm512_loadu_pd(p + r * h);
  avx512_cross<K>(v);
#pragma GCC unroll 16
  for (std::size_t r = 0; r < R; ++r) {
    if (Masked) _mm512_mask_storeu_pd(p + r * h, mask, avx512_scaled<Scale>(v[r], e));
    else _mm512_storeu_pd(p + r * h, avx512_scaled<Scale>(v[r], e));
  }
}

// K fused stages h, 2h, ..., 2^(K-1) h over x[0..n); h a multiple of 8.
// Each step loads 2^K vectors h apart, so 2^K streams run through memory.
// The butterflies are elementwise across the streams, so the vectors can be
// shifted to 64-byte boundaries: a masked head and tail handle the rest.
// Aligned accesses matter because every unaligned 64-byte load or store
// straddles two cache lines.
template <int K, bool Scale>
KITCHEN_TARGET_AVX512 inline void avx512_pass(double* x, std::size_t n, std::size_t h,
                                              const avx512_extras& e) {
  constexpr std::size_t R = std::size_t(1) << K;
  const unsigned mis = (reinterpret_cast<std::uintptr_t>(x) / sizeof(double)) % 8;
  for (std::size_t i = 0; i < n; i += h * R) {
    double* p = x + i;
    if (mis == 0) {
      for (std::size_t j = 0; j < h; j += 8) avx512_column<K, false, Scale>(p + j, h, 0xFF, e);
    } else {
      p -= mis;  // 64-byte aligned; lanes below `mis` belong to the previous block
      avx512_column<K, true, Scale>(p, h, __mmask8(0xFF << mis), e);
      for (std::size_t j = 8; j < h; j += 8) avx512_column<K, false, Scale>(p + j, h, 0xFF, e);
      avx512_column<K, true, Scale>(p + h, h, __mmask8((1u << mis) - 1), e);
    }
  }
}

// Stages fused per pass: 4 (16 streams) inside L1; 3 (8 streams) for the
// passes over bigger blocks, whose power-of-two strides map all streams to
// the same L1 set: 16 lines overflow its 12 ways, 8 fit (measured 1.5-2x).
constexpr int avx512_leaf_fused = 4;
constexpr int avx512_outer_fused = 3;

template <bool Scale>
KITCHEN_TARGET_AVX512 inline void avx512_pass_k(double* x, std::size_t n, std::size_t h, int k,
                                                const avx512_extras& e) {
  switch (k) {
    case 1: avx512_pass<1, Scale>(x, n, h, e); break;
    case 2: avx512_pass<2, Scale>(x, n, h, e); break;
    case 3: avx512_pass<3, Scale>(x, n, h, e); break;
    default: avx512_pass<4, Scale>(x, n, h, e); break;
  }
}

// Whole transform of a block that fits in L1: base blocks (the first pass,
// from `in` to `out`), then the remaining stages in passes of up to 4 fused
// stages over `out`. Scale applies to the last pass only.
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX512 inline void avx512_leaf(const double* in, double* out, std::size_t n,
                                              avx512_extras& e) {
  const int total = log2_exact(n);
  if (total == avx512_log_base) {
    avx512_base<Check, Scale>(in, out, e);
    return;
  }
  for (std::size_t i = 0; i < n; i += std::size_t(1) << avx512_log_base)
    avx512_base<Check, false>(in + i, out + i, e);
  int done = avx512_log_base;
  while (done < total) {
    const int k = split_stages(total - done, avx512_leaf_fused);
    if (done + k == total) avx512_pass_k<Scale>(out, n, std::size_t(1) << done, k, e);
    else avx512_pass_k<false>(out, n, std::size_t(1) << done, k, e);
    done += k;
  }
}

// Cache-blocked recursion: transform the 2^K sub-blocks completely (they
// fit in a cache level below), then fuse the top K stages in one pass.
// Every value of `in` is first read by a base block of its leaf.
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX512 inline void avx512_recurse(const double* in, double* out, std::size_t n,
                                                 avx512_extras& e) {
  const int total = log2_exact(n);
  if (total <= leaf_log2) {
    avx512_leaf<Check, Scale>(in, out, n, e);
    return;
  }
  const int k = split_stages(total - leaf_log2, avx512_outer_fused);
  const std::size_t sub = n >> k;
  for (std::size_t b = 0; b < n; b += sub) avx512_recurse<Check, false>(in + b, out + b, sub, e);
  avx512_pass_k<Scale>(out, n, sub, k, e);
}

// out = scale * H in (scale applied only if Scale), n a power of two,
// n >= avx512_min_n; `out` may equal `in` (no other overlap). With Check,
// returns false if `in` holds NA/NaN/+-Inf (out is then unspecified).
template <bool Check, bool Scale>
KITCHEN_TARGET_AVX512 inline bool fwht_avx512(const double* in, double* out, std::size_t n,
                                              double scale) {
  avx512_extras e{_mm512_setzero_pd(), _mm512_set1_pd(scale)};
  if (n < std::size_t(1) << avx512_log_base) {
    // 64 doubles: one 8-register block, stages 1..32.
    __m512d v[8];
#pragma GCC unroll 8
    for (std::size_t r = 0; r < 8; ++r)
      v[r] = avx512_stages_1_2_4(avx512_load_in<Check>(in + 8 * r, e));
    avx512_cross<3>(v);
#pragma GCC unroll 8
    for (std::size_t r = 0; r < 8; ++r) _mm512_storeu_pd(out + 8 * r, avx512_scaled<Scale>(v[r], e));
  } else {
    avx512_recurse<Check, Scale>(in, out, n, e);
  }
  // Lanes of e.bad are +0 or NaN.
  return !Check || _mm512_cmp_pd_mask(e.bad, e.bad, _CMP_UNORD_Q) == 0;
}

}  // namespace detail
}  // namespace kitchen

#endif  // KITCHEN_X86_SIMD
