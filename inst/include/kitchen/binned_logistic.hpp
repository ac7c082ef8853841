// The Hessian of the logistic loss on random binning features, as a product
// (Newton-CG of R/krr_binned_logistic.R). With probabilities p (n x F, the
// F classes whose links are free) and row weights w, the Hessian of
// sum_i w_i * -log p_i[y_i] in the coefficients and intercepts is
// [[A, B], [B', C]]: A = Z' T(Z V), B x = Z' T(1 x'), C = 1' T(1 .) (F x F),
// where T(U)_ik = w_i p_ik (u_ik - sum_l p_il u_il). The intercepts are
// eliminated (as centring does for least squares): the coefficients' system
// is the Schur complement A - B C^+ B', applied as
// Z' T(Z V + 1 c') with c = -C^+ colSums(T(Z V)), so it costs one product
// Z v and one Z'u per free class. Raw memory only; no R headers.
#pragma once

#include <cstddef>

namespace kitchen {

// T(U) in place on rows [row_begin, row_end) of u (n x f, column-major).
inline void logistic_hessian_rows(const double* p, const double* w, std::size_t n, std::size_t f,
                                  std::size_t row_begin, std::size_t row_end, double* u) {
  for (std::size_t i = row_begin; i < row_end; ++i) {
    double s = 0;
    for (std::size_t k = 0; k < f; ++k) s += p[k * n + i] * u[k * n + i];
    for (std::size_t k = 0; k < f; ++k) u[k * n + i] = w[i] * p[k * n + i] * (u[k * n + i] - s);
  }
}

// t += T(1 c') on rows [row_begin, row_end): T is linear, so this turns
// T(Z V) into T(Z V + 1 c') without keeping Z V.
inline void logistic_hessian_shift(const double* p, const double* w, std::size_t n, std::size_t f,
                                   const double* c, std::size_t row_begin, std::size_t row_end,
                                   double* t) {
  for (std::size_t i = row_begin; i < row_end; ++i) {
    double s = 0;
    for (std::size_t k = 0; k < f; ++k) s += p[k * n + i] * c[k];
    for (std::size_t k = 0; k < f; ++k) t[k * n + i] += w[i] * p[k * n + i] * (c[k] - s);
  }
}

}  // namespace kitchen
