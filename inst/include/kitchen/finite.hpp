// Scanning numeric input for values the algorithms cannot use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace kitchen {

// True when the exponent bits are all ones: NA, NaN, +Inf or -Inf.
inline bool is_nonfinite_bits(double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const std::uint64_t exponent = 0x7ff0000000000000ULL;
  return (bits & exponent) == exponent;
}

// Whether x[0..n) has no NA, NaN or +-Inf. Branch-free over blocks so the
// compiler can vectorise it; cheap next to any transform of the same data.
inline bool all_finite(const double* x, std::size_t n) {
  const std::size_t block = 16;
  std::size_t i = 0;
  for (; i + block <= n; i += block) {
    bool bad = false;
    for (std::size_t k = 0; k < block; ++k) bad |= is_nonfinite_bits(x[i + k]);
    if (bad) return false;
  }
  for (; i < n; ++i) {
    if (is_nonfinite_bits(x[i])) return false;
  }
  return true;
}

// Index (0-based) of the first NA, NaN or +-Inf in x[0..n), or n if none.
inline std::size_t first_nonfinite(const double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (is_nonfinite_bits(x[i])) return i;
  }
  return n;
}

}  // namespace kitchen
