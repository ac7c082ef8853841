// Products with a random binning feature matrix Z held as the column of
// each row's bin per grid (cols: n x n_grids, grid-major, -1 for no
// column), every non-zero equal to `value`. The matrix-free ridge solver
// of krr_fit() needs only these two products.
#pragma once

#include <cstddef>

namespace kitchen {

// out[i] = value * sum_g v[cols[g * n + i]] for rows [row_begin, row_end);
// grids are added in order, so a row's result never depends on the split.
inline void binned_times(const int* cols, std::size_t n, std::size_t n_grids, double value,
                         const double* v, std::size_t row_begin, std::size_t row_end,
                         double* out) {
  for (std::size_t i = row_begin; i < row_end; ++i) out[i] = 0.0;
  for (std::size_t g = 0; g < n_grids; ++g) {
    const int* c = cols + g * n;
    for (std::size_t i = row_begin; i < row_end; ++i) {
      if (c[i] >= 0) out[i] += v[c[i]];
    }
  }
  for (std::size_t i = row_begin; i < row_end; ++i) out[i] *= value;
}

// out[k] += value * sum of u[i] over the rows i in column k, for the
// columns of grids [g_begin, g_end). Each grid's columns are its own, so
// grids can go to different threads; rows are added in order.
inline void binned_crossprod(const int* cols, std::size_t n, double value, const double* u,
                             std::size_t g_begin, std::size_t g_end, double* out) {
  for (std::size_t g = g_begin; g < g_end; ++g) {
    const int* c = cols + g * n;
    for (std::size_t i = 0; i < n; ++i) {
      if (c[i] >= 0) out[c[i]] += value * u[i];
    }
  }
}

}  // namespace kitchen
