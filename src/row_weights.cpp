// Sample weights in the fit: each block of features is scaled row by row
// by sqrt(w), so that the Gram kernels accumulate Z'WZ unchanged.
#include <Rcpp.h>

// Multiplies row i of z by root[i], in place. Only for a feature block the
// fit has just made and holds no other reference to (R/krr.R
// accumulate_rows()): it saves a copy of the block.
// [[Rcpp::export(rng = false)]]
void scale_rows_in_place_cpp(SEXP z, Rcpp::NumericVector root) {
  if (!Rf_isMatrix(z) || TYPEOF(z) != REALSXP) Rcpp::stop("z must be a double matrix");
  const R_xlen_t n = Rf_nrows(z), d = Rf_ncols(z);
  if (root.size() != n) Rcpp::stop("root must have one entry per row of z");
  double* values = REAL(z);
  const double* r = root.begin();
  for (R_xlen_t j = 0; j < d; ++j) {
    double* column = values + j * n;
    for (R_xlen_t i = 0; i < n; ++i) column[i] *= r[i];
  }
}
