// Products with a random binning feature matrix Z held as the column of
// each row's bin per grid (cols: n x n_grids, grid-major, -1 for no
// column), every non-zero equal to `value`. The matrix-free ridge solver
// of krr_fit() needs only these two products.
//
// Column numbers come from R, so each product checks every one it uses
// against the number of columns as it goes (one comparison, next to a
// memory access that costs far more): an entry that is neither -1 nor a
// column is skipped and makes the product return false.
#pragma once

#include <cstddef>
#include <type_traits>

namespace kitchen {

// True if c is a column number below n_columns or -1 (no column).
inline bool binned_column_ok(int c, std::size_t n_columns) {
  return c == -1 || (c >= 0 && static_cast<std::size_t>(c) < n_columns);
}

// out[i] = value * sum_g v[cols[g * n + i]] for rows [row_begin, row_end),
// v holding n_columns values; grids are added in order, so a row's result
// never depends on the split. With k vectors at once (interleaved: value
// j of column c at v[c * k + j], of row i at out[i * k + j]), each row's
// bins are read once for all k, and each vector's sums are those it gets
// alone (k: a std::size_t or a std::integral_constant, as in
// binned_cg.hpp). Returns false if a column number is bad.
template <class Width>
inline bool binned_times_columns(const int* cols, std::size_t n, std::size_t n_grids,
                                 double value, const double* v, Width k,
                                 std::size_t n_columns, std::size_t row_begin,
                                 std::size_t row_end, double* out) {
  bool ok = true;
  for (std::size_t i = row_begin * k; i < row_end * k; ++i) out[i] = 0.0;
  for (std::size_t g = 0; g < n_grids; ++g) {
    const int* c = cols + g * n;
    for (std::size_t i = row_begin; i < row_end; ++i) {
      if (c[i] >= 0 && static_cast<std::size_t>(c[i]) < n_columns) {
        const double* from = v + static_cast<std::size_t>(c[i]) * k;
        for (std::size_t j = 0; j < k; ++j) out[i * k + j] += from[j];
      } else if (c[i] != -1) {
        ok = false;
      }
    }
  }
  for (std::size_t i = row_begin * k; i < row_end * k; ++i) out[i] *= value;
  return ok;
}

inline bool binned_times(const int* cols, std::size_t n, std::size_t n_grids, double value,
                         const double* v, std::size_t n_columns, std::size_t row_begin,
                         std::size_t row_end, double* out) {
  return binned_times_columns(cols, n, n_grids, value, v, std::integral_constant<std::size_t, 1>(),
                              n_columns, row_begin, row_end, out);
}

// out[k] += value * sum of u[i] over the rows i in column k (out holding
// n_columns values), for the columns of grids [g_begin, g_end). Each
// grid's columns are its own, so grids can go to different threads; rows
// are added in order. With k vectors at once, interleaved as in
// binned_times_columns(). Returns false if a column number is bad.
template <class Width>
inline bool binned_crossprod_columns(const int* cols, std::size_t n, double value,
                                     const double* u, Width k, std::size_t n_columns,
                                     std::size_t g_begin, std::size_t g_end, double* out) {
  bool ok = true;
  for (std::size_t g = g_begin; g < g_end; ++g) {
    const int* c = cols + g * n;
    for (std::size_t i = 0; i < n; ++i) {
      if (c[i] >= 0 && static_cast<std::size_t>(c[i]) < n_columns) {
        double* to = out + static_cast<std::size_t>(c[i]) * k;
        for (std::size_t j = 0; j < k; ++j) to[j] += value * u[i * k + j];
      } else if (c[i] != -1) {
        ok = false;
      }
    }
  }
  return ok;
}

inline bool binned_crossprod(const int* cols, std::size_t n, double value, const double* u,
                             std::size_t n_columns, std::size_t g_begin, std::size_t g_end,
                             double* out) {
  return binned_crossprod_columns(cols, n, value, u, std::integral_constant<std::size_t, 1>(),
                                  n_columns, g_begin, g_end, out);
}

}  // namespace kitchen
