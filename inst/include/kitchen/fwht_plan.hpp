// How the SIMD transforms split log2(n) stages into cache-friendly passes.
// Shared by the AVX2 and AVX-512 kernels; plain C++, no intrinsics.
#pragma once

#include <cstddef>

namespace kitchen {
namespace detail {

// log2(n) for n a power of two.
inline int log2_exact(std::size_t n) {
  int k = 0;
  while ((std::size_t(1) << k) < n) ++k;
  return k;
}

// Blocks of up to 2^leaf_log2 doubles (32 KB) are transformed entirely in L1
// (48 KB on Zen 4/5, 32 KB on older cores); bigger ones are split.
constexpr int leaf_log2 = 12;

// Stages fused in one pass when `left` stages remain and a pass can hold at
// most `kmax` (2^kmax registers). Splits evenly rather than leaving a lone
// 1-stage pass, e.g. 5 -> 3 + 2, 6 -> 3 + 3.
inline int split_stages(int left, int kmax) {
  if (left <= kmax) return left;
  const int passes = (left + kmax - 1) / kmax;
  return (left + passes - 1) / passes;
}

}  // namespace detail
}  // namespace kitchen
