// The D x D arithmetic of K-fold cross-validation from sufficient
// statistics, by units the caller can spread over threads and check for
// interrupts between: at D = 12,000 a Gram matrix is 1.15 GB, and R's own
// `a - b` or `g %*% w` on it holds the main thread for seconds.
//
// Each entry is computed as R computes it (elementwise a + sign * b; the
// products in the order of the reference BLAS's dgemm, the column sums in
// long double as colSums()), so results do not change with the move.
#pragma once

#include <algorithm>
#include <cstddef>

namespace kitchen {

// Columns per unit: wide for the elementwise pass; narrow for the product,
// whose m columns (lambdas x responses, often 50) must still make several
// units, each reusing a column of G from cache for all of its columns.
constexpr std::size_t fold_algebra_block = 64;
constexpr std::size_t gram_times_block = 8;

inline std::size_t fold_algebra_units(std::size_t cols, std::size_t block) {
  return (cols + block - 1) / block;
}

// Columns of unit u of a + sign * b (dim rows each).
inline void gram_combine_columns(const double* a, const double* b, double sign, std::size_t dim,
                                 std::size_t cols, std::size_t u, double* out) {
  const std::size_t j0 = u * fold_algebra_block, j1 = std::min(cols, j0 + fold_algebra_block);
  for (std::size_t e = j0 * dim; e < j1 * dim; ++e) out[e] = a[e] + sign * b[e];
}

// Columns of unit u of the sum of `count` matrices, added in their order
// (((g0 + g1) + g2) + ...), as R's Reduce(`+`, ...) adds them.
inline void gram_sum_columns(const double* const* g, std::size_t count, std::size_t dim,
                             std::size_t cols, std::size_t u, double* out) {
  const std::size_t j0 = u * fold_algebra_block, j1 = std::min(cols, j0 + fold_algebra_block);
  for (std::size_t e = j0 * dim; e < j1 * dim; ++e) {
    double s = g[0][e];
    for (std::size_t k = 1; k < count; ++k) s += g[k][e];
    out[e] = s;
  }
}

// Entry (r, c) of (a - b) - n zbar zbar' (a, b: dim x dim): a fold's
// training Gram matrix centred, from the total and the fold's own, each
// entry as R computes (a - b) - n * tcrossprod(zbar).
inline double centred_difference_entry(const double* a, const double* b, const double* zbar,
                                       double n, std::size_t dim, std::size_t r, std::size_t c) {
  const std::size_t e = r + c * dim;
  return (a[e] - b[e]) - n * (zbar[r] * zbar[c]);
}

// Columns c in unit u of out += G[:, l0:l1] W[l0:l1, c] (G: dim x dim, W and
// out: dim x m). Calling it for consecutive ranges l0:l1 adds the terms of
// each entry in the order of dgemm's loops (l outer, i inner), so the
// finished out equals R's G %*% W on the reference BLAS.
inline void gram_times_columns(const double* g, const double* w, std::size_t dim, std::size_t m,
                               std::size_t l0, std::size_t l1, std::size_t u, double* out) {
  const std::size_t c0 = u * gram_times_block, c1 = std::min(m, c0 + gram_times_block);
  for (std::size_t l = l0; l < l1; ++l) {
    const double* gl = g + l * dim;
    for (std::size_t c = c0; c < c1; ++c) {
      const double t = w[l + c * dim];
      if (t == 0) continue;  // as dgemm: a zero coefficient adds nothing
      double* oc = out + c * dim;
      for (std::size_t i = 0; i < dim; ++i) oc[i] += t * gl[i];
    }
  }
}

// colSums(w * v) for dim x m matrices, each sum in long double as R's.
inline void weighted_column_sums(const double* w, const double* v, std::size_t dim, std::size_t m,
                                 double* out) {
  for (std::size_t c = 0; c < m; ++c) {
    long double s = 0;
    for (std::size_t i = 0; i < dim; ++i) s += w[i + c * dim] * v[i + c * dim];
    out[c] = static_cast<double>(s);
  }
}

}  // namespace kitchen
