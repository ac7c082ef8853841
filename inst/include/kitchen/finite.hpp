// Scanning numeric input for values the algorithms cannot use.
#pragma once

#include <cmath>
#include <cstddef>

namespace kitchen {

// Index (0-based) of the first NA, NaN or +-Inf in x[0..n), or n if none.
inline std::size_t first_nonfinite(const double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i])) return i;
  }
  return n;
}

}  // namespace kitchen
