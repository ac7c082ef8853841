// Fast Walsh-Hadamard transform, Sylvester (natural) order, unnormalised:
// H_1 = 1, H_2n = [[H_n, H_n], [H_n, -H_n]].
//
// Every code path applies the radix-2 butterflies stage by stage in
// increasing stride (1, 2, 4, ..., n/2), so all paths round identically and
// results are bitwise equal whatever the instruction set.
//
// Kernels: fwht_avx2.hpp, fwht_avx512.hpp (x86-64 only, chosen at run time);
// how they split the stages into cache-sized passes: fwht_plan.hpp.
#pragma once

#include <cstddef>

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

// In-place transform of x[0..n), n a power of two, using `level` (already
// resolved against the CPU with resolve_simd()).
// Sizes below a kernel's minimum (a few dozen doubles) go to the scalar code.
inline void fwht(double* x, std::size_t n, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512 && n >= detail::avx512_min_n) {
    detail::fwht_avx512(x, n);
    return;
  }
  if (level != simd_level::scalar && n >= detail::avx2_min_n) {
    detail::fwht_avx2(x, n);
    return;
  }
#else
  (void)level;
#endif
  fwht_scalar(x, n);
}

}  // namespace kitchen
