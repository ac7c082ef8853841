// Finishing Z'Z for the solvers: the full symmetric matrix from its upper
// triangle, and the centred matrix G - n zbar zbar'. Both write a new
// matrix by blocks of columns that the caller may spread over threads (and
// check for interrupts between): at D = 12,000 each is a 1.15 GB pass.
#pragma once

#include <algorithm>
#include <cstddef>

namespace kitchen {

// Columns per unit of work: the unit writes this many columns down all
// rows, reading the transposed entries as rows of this width (contiguous).
constexpr std::size_t gram_finish_block = 64;

inline std::size_t gram_finish_units(std::size_t dim) {
  return (dim + gram_finish_block - 1) / gram_finish_block;
}

// Columns of unit u of g copied to out (zeros when g is null).
inline void gram_copy(const double* g, std::size_t dim, std::size_t u, double* out) {
  const std::size_t j0 = u * gram_finish_block, j1 = std::min(dim, j0 + gram_finish_block);
  if (g) {
    std::copy(g + j0 * dim, g + j1 * dim, out + j0 * dim);
  } else {
    std::fill(out + j0 * dim, out + j1 * dim, 0.0);
  }
}

// Columns of unit u: out[i, j] = g[min(i, j), max(i, j)] for j in the unit.
inline void gram_symmetric_copy(const double* g, std::size_t dim, std::size_t u, double* out) {
  const std::size_t j0 = u * gram_finish_block, j1 = std::min(dim, j0 + gram_finish_block);
  for (std::size_t i = 0; i < dim; ++i) {
    for (std::size_t j = j0; j < j1; ++j) {
      out[i + j * dim] = i <= j ? g[i + j * dim] : g[j + i * dim];
    }
  }
}

// Columns of unit u of g made symmetric in place: their entries below the
// diagonal from the upper triangle (of later columns: units never write
// what another reads).
inline void gram_mirror_upper(double* g, std::size_t dim, std::size_t u) {
  const std::size_t j0 = u * gram_finish_block, j1 = std::min(dim, j0 + gram_finish_block);
  for (std::size_t i = j0 + 1; i < dim; ++i) {
    for (std::size_t j = j0; j < std::min(j1, i); ++j) g[i + j * dim] = g[j + i * dim];
  }
}

// Columns of unit u of G - n zbar zbar' (G symmetric), each entry as R's
// g - n * (zbar_i * zbar_j): the result is symmetric too.
inline void gram_centered(const double* g, const double* zbar, double n, std::size_t dim,
                          std::size_t u, double* out) {
  const std::size_t j0 = u * gram_finish_block, j1 = std::min(dim, j0 + gram_finish_block);
  for (std::size_t j = j0; j < j1; ++j) {
    const double zj = zbar[j];
    const double* gj = g + j * dim;
    double* oj = out + j * dim;
    for (std::size_t i = 0; i < dim; ++i) oj[i] = gj[i] - n * (zbar[i] * zj);
  }
}

}  // namespace kitchen
