// FALKON (Rudi, Carratino and Rosasco, 2017): ridge regression on Nystroem
// features solved by preconditioned conjugate gradients, with the n x M
// kernel matrix K_nM streamed block by block in every iteration and never
// held. Here the unknowns are the feature weights w of the Nystroem map
// z(x) = k(x, C) N (N = K_CC^(-1/2)), so that the fit is the one the direct
// solve gives, to the solver's tolerance:
//   (Zc' W Zc + lambda I) w = Zc' W (y - ybar),   Z = K_nM N,
// with W the row weights and Zc the weighted-centred features. A product is
//   A v = N K_Mn W K_nM N v - W_total zbar zbar' v + lambda v.
// Preconditioner: for centers drawn from the rows, K_Mn W K_nM is about
// c K_CC^2 with c = W_total / M, so A is about c K_CC + lambda I (on the
// range of N), whose Cholesky factor is formed once (M^3 / 3, the only
// M x M factorisation) and applied by two triangular solves per iteration.
// This file holds the block products; the streaming loop, threads and
// interrupt checks are in the glue (src/falkon.cpp).
#pragma once

#include <cstddef>

#include "eigen.hpp"

namespace kitchen {

using falkon_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

// u[i, ] = weight[i] * (K_b[i, ] t) for the block's rows i in [r0, r1);
// kb: rows x M (column-major), t: M x q, u: rows x q.
inline void falkon_rows_times(const double* kb, std::size_t rows, std::size_t m, const double* t,
                              std::size_t q, const double* weight, std::size_t r0, std::size_t r1,
                              double* u) {
  Eigen::Map<const falkon_matrix> k(kb, rows, m);
  Eigen::Map<const falkon_matrix> tm(t, m, q);
  Eigen::Map<falkon_matrix> um(u, rows, q);
  const Eigen::Index len = static_cast<Eigen::Index>(r1 - r0);
  um.middleRows(r0, len).noalias() = k.middleRows(r0, len) * tm;
  if (weight) {
    for (std::size_t j = 0; j < q; ++j) {
      for (std::size_t i = r0; i < r1; ++i) u[i + j * rows] *= weight[i];
    }
  }
}

// acc[c, ] += K_b[, c]' u for the centers c in [c0, c1); acc: M x q.
inline void falkon_cross_add(const double* kb, std::size_t rows, std::size_t m, const double* u,
                             std::size_t q, std::size_t c0, std::size_t c1, double* acc) {
  Eigen::Map<const falkon_matrix> k(kb, rows, m);
  Eigen::Map<const falkon_matrix> um(u, rows, q);
  Eigen::Map<falkon_matrix> am(acc, m, q);
  const Eigen::Index len = static_cast<Eigen::Index>(c1 - c0);
  am.middleRows(c0, len).noalias() += k.middleCols(c0, len).transpose() * um;
}

}  // namespace kitchen
