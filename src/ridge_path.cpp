// Glue for krr_fit()'s lambda path: LAPACK (R's own, or the optimised one R
// is linked to) reduces the centred Gram matrix to tridiagonal form; the
// core scores every lambda from it; the chosen lambda's coefficients are
// mapped back with the same Householder reflectors.
#include "blas_gemm.h"  // first: sets up R's Fortran string-length arguments
#include <R_ext/Lapack.h>
#include <Rcpp.h>

#include <algorithm>
#include <vector>

#include "kitchen/ridge_path.hpp"

namespace {

// Applies Q (trans 'N') or Q' (trans 'T') of dsytrd's reflectors to c
// (dim x k), in place.
void apply_q(const char trans, const std::vector<double>& reflectors, int dim,
             const std::vector<double>& tau, double* c, int k) {
  const char side = 'L', upper = 'U';
  int info = 0, lwork = -1;
  double size = 0.0;
  F77_CALL(dormtr)(&side, &upper, &trans, &dim, &k, reflectors.data(), &dim, tau.data(), c, &dim,
                   &size, &lwork, &info FCONE FCONE FCONE);
  lwork = std::max(1, static_cast<int>(size));
  std::vector<double> work(lwork);
  F77_CALL(dormtr)(&side, &upper, &trans, &dim, &k, reflectors.data(), &dim, tau.data(), c, &dim,
                   work.data(), &lwork, &info FCONE FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dormtr failed (info = %d).", info);
}

}  // namespace

// gram: centred Z'Z (dim x dim, upper triangle read); zy: centred Z'y
// (dim x k); yy: total centred y'y; n: rows; lambdas: candidates (> 0).
// Returns list(gcv, df, coefficients) with the coefficients (dim x k) of
// the lambda with the lowest score.
// [[Rcpp::export(rng = false)]]
Rcpp::List ridge_gcv_path_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix zy, double yy,
                              double n, Rcpp::NumericVector lambdas) {
  const int dim = gram.nrow(), k = zy.ncol();
  std::vector<double> reflectors(gram.begin(), gram.end());
  std::vector<double> d(dim), e(std::max(dim - 1, 1)), tau(std::max(dim - 1, 1));
  const char upper = 'U';
  int info = 0, lwork = -1;
  double size = 0.0;
  F77_CALL(dsytrd)(&upper, &dim, reflectors.data(), &dim, d.data(), e.data(), tau.data(), &size,
                   &lwork, &info FCONE);
  lwork = std::max(1, static_cast<int>(size));
  std::vector<double> work(lwork);
  F77_CALL(dsytrd)(&upper, &dim, reflectors.data(), &dim, d.data(), e.data(), tau.data(),
                   work.data(), &lwork, &info FCONE);
  if (info != 0) Rcpp::stop("LAPACK dsytrd failed (info = %d).", info);

  std::vector<double> b(zy.begin(), zy.end());
  apply_q('T', reflectors, dim, tau, b.data(), k);
  std::vector<double> eigenvalues(d), off(e);
  F77_CALL(dsterf)(&dim, eigenvalues.data(), off.data(), &info);
  if (info != 0) Rcpp::stop("LAPACK dsterf failed (info = %d).", info);

  const std::size_t n_lambdas = lambdas.size();
  Rcpp::NumericVector gcv(n_lambdas), df(n_lambdas);
  kitchen::ridge_gcv_path(d.data(), e.data(), eigenvalues.data(), dim, b.data(), k, yy, n,
                          lambdas.begin(), n_lambdas, gcv.begin(), df.begin());
  std::size_t best = n_lambdas;
  for (std::size_t l = 0; l < n_lambdas; ++l) {
    if (gcv[l] == gcv[l] && (best == n_lambdas || gcv[l] < gcv[best])) best = l;
  }
  if (best == n_lambdas) Rcpp::stop("No lambda candidate gives a positive definite system.");

  Rcpp::NumericMatrix w(dim, k);
  std::vector<double> pivot;
  for (int j = 0; j < k; ++j) {
    kitchen::tridiagonal_solve(d.data(), e.data(), dim, lambdas[best], b.data() + j * dim,
                               w.begin() + j * dim, pivot);
  }
  apply_q('N', reflectors, dim, tau, w.begin(), k);
  return Rcpp::List::create(Rcpp::Named("gcv") = gcv, Rcpp::Named("df") = df,
                            Rcpp::Named("coefficients") = w, Rcpp::Named("best") = best + 1);
}
