// Per-column summaries of a dense column-major matrix for input rescaling:
// mean and standard deviation in two passes (the second on centred values,
// so columns whose mean is large next to their spread keep their
// precision), and the range.
#pragma once

#include <cmath>
#include <cstddef>

namespace kitchen {

// Columns [j_begin, j_end) of the n x d matrix x (column stride n); sd uses
// the n - 1 denominator (0 when n = 1). Sums run on values divided by the
// column's largest magnitude, so values near the largest double (1e300 and
// beyond) neither overflow nor lose the spread.
inline void column_moments(const double* x, std::size_t n, std::size_t j_begin,
                           std::size_t j_end, double* mean, double* sd) {
  for (std::size_t j = j_begin; j < j_end; ++j) {
    const double* col = x + j * n;
    double big = 0.0;
    for (std::size_t i = 0; i < n; ++i) big = std::fabs(col[i]) > big ? std::fabs(col[i]) : big;
    double sum = 0.0;
    if (big > 0.0) {
      for (std::size_t i = 0; i < n; ++i) sum += col[i] / big;
    }
    const double m = big * (sum / static_cast<double>(n));
    double spread = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      spread = std::fabs(col[i] - m) > spread ? std::fabs(col[i] - m) : spread;
    }
    double squares = 0.0;
    if (spread > 0.0) {
      for (std::size_t i = 0; i < n; ++i) {
        const double t = (col[i] - m) / spread;
        squares += t * t;
      }
    }
    mean[j] = m;
    sd[j] = n > 1 ? spread * std::sqrt(squares / static_cast<double>(n - 1)) : 0.0;
  }
}

// Smallest and largest value of columns [j_begin, j_end).
inline void column_ranges(const double* x, std::size_t n, std::size_t j_begin,
                          std::size_t j_end, double* low, double* high) {
  for (std::size_t j = j_begin; j < j_end; ++j) {
    const double* col = x + j * n;
    double lo = col[0], hi = col[0];
    for (std::size_t i = 1; i < n; ++i) {
      lo = col[i] < lo ? col[i] : lo;
      hi = col[i] > hi ? col[i] : hi;
    }
    low[j] = lo;
    high[j] = hi;
  }
}

}  // namespace kitchen
