// The eigenpairs of a symmetric matrix above a relative cutoff, in the form
// of R's eigen(symmetric = TRUE) (values decreasing, vectors as columns), for
// the dual paths' n x n Gram matrices (R/krr_dual.R, R/krr_logistic_dual.R):
// kitchen's threaded, interruptible reduction instead of R's eigen()
// (src/tridiagonal_eigen.h).
#include "blas_gemm.h"  // first: sets up R's Fortran string-length arguments
#include <Rcpp.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "simd_name.h"
#include "tridiagonal_eigen.h"

// k: a symmetric n x n matrix (its upper triangle is read). Returns
// list(values, vectors) for the eigenvalues above relative_cutoff times the
// largest (none when the largest is not positive).
// [[Rcpp::export(rng = false)]]
Rcpp::List kept_eigen_cpp(Rcpp::NumericMatrix k, double relative_cutoff, int n_threads,
                          SEXP simd) {
  const std::size_t n = k.nrow();
  if (static_cast<std::size_t>(k.ncol()) != n) Rcpp::stop("k must be square.");
  if (!(relative_cutoff >= 0)) Rcpp::stop("relative_cutoff must be at least 0.");
  std::vector<double> w, z;
  const std::size_t r = kitchen_glue::kept_eigenpairs(
      k.begin(), n, relative_cutoff, kitchen_glue::simd_from_name(simd), n_threads, w, z);
  // dstemr's order is ascending; eigen()'s decreasing.
  Rcpp::NumericVector values(r);
  Rcpp::NumericMatrix vectors(n, r);
  for (std::size_t j = 0; j < r; ++j) {
    values[j] = w[r - 1 - j];
    std::copy(z.begin() + (r - 1 - j) * n, z.begin() + (r - j) * n, vectors.begin() + j * n);
  }
  return Rcpp::List::create(Rcpp::Named("values") = values, Rcpp::Named("vectors") = vectors);
}
