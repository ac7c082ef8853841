// Run-time choice of the SIMD instruction set.
//
// R builds packages with portable flags (-O2, SSE2 on x86-64), so wider
// instruction sets are only used inside functions compiled with
// __attribute__((target(...))) and only after the CPU says it has them.
#pragma once

namespace kitchen {

// Ordered: a higher level implies the lower ones are available too.
enum class simd_level : int { scalar = 0, avx2 = 1, avx512 = 2 };

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define KITCHEN_X86_SIMD 1
#else
#define KITCHEN_X86_SIMD 0
#endif

// The best level this CPU (and compiler) supports.
inline simd_level detect_simd() {
#if KITCHEN_X86_SIMD
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
    return simd_level::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return simd_level::avx2;
#endif
  return simd_level::scalar;
}

// The level to use when the caller asks for `requested`: never more than the
// CPU supports, so forcing "avx512" on an older CPU is safe.
inline simd_level resolve_simd(simd_level requested) {
  simd_level best = detect_simd();
  return static_cast<int>(requested) < static_cast<int>(best) ? requested : best;
}

// A product (or any value) rounded on its own: GCC fuses a multiply and an
// add or subtract into one instruction wherever the target has FMA (its
// default -ffp-contract=fast applies to intrinsics too), which rounds once
// instead of twice. The empty asm hands the compiler a value it cannot see
// through, so code that must round as separate operations (rbin's bins, the
// reference BLAS's sums) does so on every level.
// keep_unfused() marks a value in place: by reference, so that a vector
// type can go through it from inside a function compiled for AVX without
// passing it by value (GCC's -Wpsabi warns on that).
template <class T>
inline void keep_unfused(T& value) {
#if KITCHEN_X86_SIMD
  __asm__("" : "+x"(value));
#else
  volatile T kept = value;
  value = kept;
#endif
}

template <class T>
inline T unfused(T value) {
  keep_unfused(value);
  return value;
}

}  // namespace kitchen
