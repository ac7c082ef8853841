// The one rule that picks a candidate from its scores, wherever they come
// from: lambda by GCV or CV, the bandwidth search, ARD's grid.
#pragma once

#include <cstddef>

namespace kitchen {

// The position of the lowest score, the first of equal ones, NaN skipped
// (as R's which.min()); n when every score is NaN.
inline std::size_t lowest_score(const double* scores, std::size_t n) {
  std::size_t best = n;
  for (std::size_t i = 0; i < n; ++i) {
    if (scores[i] == scores[i] && (best == n || scores[i] < scores[best])) best = i;
  }
  return best;
}

}  // namespace kitchen
