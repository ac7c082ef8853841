// Ridge regression along a path of lambdas from the tridiagonal form of the
// centred Gram matrix: G = Q T Q' (T symmetric tridiagonal), b = Q' Z'y.
// For each lambda, u = (T + lambda I)^-1 b costs O(D), and
//   RSS(lambda) = y'y - b'u - lambda u'u,   df = 1 + sum_i e_i / (e_i + lambda)
// with e the eigenvalues of T (those of G). This is the GCV of krr_fit()
// without the eigenvectors: reducing G to T is a third of the work of a
// full symmetric eigendecomposition, and nothing after it is cubic.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

namespace kitchen {

// Solves (T + lambda I) u = b for the symmetric tridiagonal T with diagonal
// d (n) and off-diagonal e (n - 1), T + lambda I positive definite, by its
// LDL' factorisation (no pivoting needed). Returns false if a pivot is not
// positive (T + lambda I singular or indefinite).
inline bool tridiagonal_solve(const double* d, const double* e, std::size_t n, double lambda,
                              const double* b, double* u, std::vector<double>& pivot) {
  pivot.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double coupling = i > 0 ? e[i - 1] * e[i - 1] / pivot[i - 1] : 0.0;
    pivot[i] = d[i] + lambda - coupling;
    if (!(pivot[i] > 0.0)) return false;
    u[i] = b[i] - (i > 0 ? e[i - 1] / pivot[i - 1] * u[i - 1] : 0.0);
  }
  for (std::size_t i = n; i-- > 0;) {
    u[i] = u[i] / pivot[i] - (i + 1 < n ? e[i] / pivot[i] * u[i + 1] : 0.0);
  }
  return true;
}

// b'u + lambda u'u over n entries: what one response takes off y'y in
// RSS(lambda) = y'y - b'u - lambda u'u.
inline double rss_decrease(const double* b, const double* u, std::size_t n, double lambda) {
  double bu = 0.0, uu = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    bu += b[i] * u[i];
    uu += u[i] * u[i];
  }
  return bu + lambda * uu;
}

// GCV score n RSS / (n - df)^2 for n observed rows and `dim` features, a
// negative RSS (rounding) taken as 0. None (NaN) where the fit leaves less
// than half a residual degree of freedom and Z'Z is rank-deficient (dim >=
// n - 1, once centred): there RSS is a difference of numbers near y'y that
// cancels, and the dim - n + 1 zero eigenvalues are rounding noise, so the
// score was noise (a cancelled RSS scored 0 and chose lambda = 1e-9 with
// 1000 features on 600 rows, where the exact score chooses 0.95).
inline double gcv_score(double n, double rss, double df, std::size_t dim) {
  if (static_cast<double>(dim) + 1.0 >= n && !(n - df >= 0.5)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  const double residual = rss > 0.0 ? rss : 0.0;
  return n * residual / ((n - df) * (n - df));
}

// GCV score n RSS / (n - df)^2 (summed over the k responses, columns of b,
// dim x k) and df for each lambda; NaN where T + lambda I is singular.
inline void ridge_gcv_path(const double* d, const double* e, const double* eigenvalues,
                           std::size_t dim, const double* b, std::size_t k, double yy_total,
                           double n, const double* lambdas, std::size_t n_lambdas,
                           double* gcv, double* df) {
  std::vector<double> u(dim), pivot;
  for (std::size_t l = 0; l < n_lambdas; ++l) {
    const double lambda = lambdas[l];
    double trace = 1.0;
    for (std::size_t i = 0; i < dim; ++i) {
      const double value = eigenvalues[i] > 0.0 ? eigenvalues[i] : 0.0;
      trace += value / (value + lambda);
    }
    double rss = yy_total;
    bool ok = true;
    for (std::size_t j = 0; j < k && ok; ++j) {
      const double* bj = b + j * dim;
      ok = tridiagonal_solve(d, e, dim, lambda, bj, u.data(), pivot);
      rss -= rss_decrease(bj, u.data(), dim, lambda);
    }
    df[l] = trace;
    gcv[l] = ok ? gcv_score(n, rss, trace, dim) : std::numeric_limits<double>::quiet_NaN();
  }
}

}  // namespace kitchen
