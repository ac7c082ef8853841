// The factor of a logistic preconditioner (R/krr_logistic.R, logistic_bound()),
// shared by logistic_bound_factor_cpp() and the warm start's curvature in
// logistic_bound.cpp.
#pragma once

#include <Rcpp.h>

#include <cstddef>

namespace kitchen_glue {

// out (dim x dim, column-major): the upper Cholesky factor (zeros below the
// diagonal) of curvature * ((g - minus) - n zbar zbar') + 2 lambda I, with
// `minus` (a fold's own Gram matrix, so that a CV fold's training part is
// never made) or without it (null); g's lower triangle is read, or its
// upper one when `upper` (then without `minus`). Each entry as R computes
// it: c * ((g - minus) - n * (zbar_i * zbar_j)). False when not positive
// definite to double precision. By blocks of columns over threads, with
// interrupt checks between blocks.
bool logistic_factor(const double* g, const double* minus, bool upper, const double* zbar,
                     double n, double curvature, double lambda, std::size_t dim, int n_threads,
                     double* out);

// The Gram matrix (or NULL) of a CV fold's held-out rows, checked against
// the total's size `dim`, as logistic_factor()'s `minus`.
const double* fold_gram_or_null(const Rcpp::Nullable<Rcpp::NumericMatrix>& fold_gram,
                                std::size_t dim);

}  // namespace kitchen_glue
