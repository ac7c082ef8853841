// Distances between all pairs of rows, as R's stats::dist() computes them
// (the median heuristic's bandwidth, R/map.R), but on rows held
// contiguously: dist() walks each pair's columns with a stride of the
// number of rows, a cache miss per term on wide data (12-16 s for 1000
// rows of 4000 columns). Each sum runs over the columns in order, with
// dist()'s arithmetic, so the distances are bitwise dist()'s (no missing
// values here).
#pragma once

#include <cmath>
#include <cstddef>

namespace kitchen {

// rows: n rows of d values, row i at rows + i * d. Writes the distance of
// each pair (i, j), i > j, for j in [j_begin, j_end), at
// out[j * (2n - j - 1) / 2 + i - j - 1]: dist()'s order, the lower
// triangle column by column. Euclidean, or with `manhattan` the sum of
// absolute differences.
// The terms of one pair's distance: |a - b| or (a - b)^2.
inline double distance_term(double a, double b, bool manhattan) {
  const double dev = a - b;
  return manhattan ? std::fabs(dev) : dev * dev;
}

inline double distance_of_sum(double sum, bool manhattan) {
  return manhattan ? sum : std::sqrt(sum);
}

inline void pairwise_distances(const double* rows, std::size_t n, std::size_t d, bool manhattan,
                               std::size_t j_begin, std::size_t j_end, double* out) {
  for (std::size_t j = j_begin; j < j_end; ++j) {
    const double* b = rows + j * d;
    double* column = out + j * (2 * n - j - 1) / 2;
    std::size_t i = j + 1;
    // Four pairs at a time: four independent chains of additions (one
    // chain waits on each addition), each still in column order.
    for (; i + 4 <= n; i += 4) {
      const double* a0 = rows + i * d;
      const double* a1 = a0 + d;
      const double* a2 = a1 + d;
      const double* a3 = a2 + d;
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (std::size_t k = 0; k < d; ++k) {
        s0 += distance_term(a0[k], b[k], manhattan);
        s1 += distance_term(a1[k], b[k], manhattan);
        s2 += distance_term(a2[k], b[k], manhattan);
        s3 += distance_term(a3[k], b[k], manhattan);
      }
      column[i - j - 1] = distance_of_sum(s0, manhattan);
      column[i - j] = distance_of_sum(s1, manhattan);
      column[i - j + 1] = distance_of_sum(s2, manhattan);
      column[i - j + 2] = distance_of_sum(s3, manhattan);
    }
    for (; i < n; ++i) {
      const double* a = rows + i * d;
      double sum = 0;
      for (std::size_t k = 0; k < d; ++k) sum += distance_term(a[k], b[k], manhattan);
      column[i - j - 1] = distance_of_sum(sum, manhattan);
    }
  }
}

}  // namespace kitchen
