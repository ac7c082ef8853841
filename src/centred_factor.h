// Cholesky factors of a centred Gram matrix, made entry by entry from the
// total's Gram matrix less a CV fold's (so that a fold's training part is
// never in memory beside the factor): the logistic fit's preconditioner
// (R/krr_logistic.R, logistic_bound(); the warm start's curvature in
// logistic_bound.cpp) and a least-squares fold's ridge solve
// (R/calibration.R).
#pragma once

#include <Rcpp.h>

#include <cstddef>

#include "kitchen/simd.hpp"

namespace kitchen_glue {

// out (dim x dim, column-major): the lower Cholesky factor of
// scale * ((g - minus) - n zbar zbar') + shift I, with `minus` (a fold's own
// Gram matrix) or without it (null); g's lower triangle is read, or its
// upper one when `upper` (then without `minus`). Each entry as R computes
// it: scale * ((g - minus) - n * (zbar_i * zbar_j)). Only the lower triangle
// of out is written. False when not positive definite to double precision.
// By blocks of columns over threads, with interrupt checks between blocks.
bool centred_cholesky(const double* g, const double* minus, bool upper, const double* zbar,
                      double n, double scale, double shift, std::size_t dim, int n_threads,
                      double* out);

// The upper Cholesky factor R (R'R = A) of the same matrix A as
// centred_cholesky() makes, entry by entry, factored on the Gram kernels of
// `level` (avx2 or avx512; cholesky_simd.hpp): out's upper triangle holds R,
// and entries within kitchen::gram_tile_reach below the diagonal are
// scratch. False when not positive definite to double precision.
bool centred_upper_cholesky(const double* g, const double* minus, bool upper, const double* zbar,
                            double n, double scale, double shift, std::size_t dim, int n_threads,
                            kitchen::simd_level level, double* out);

// chol()'s upper factor (zeros below the diagonal) of the logistic bound
// curvature * ((g - minus) - n zbar zbar') + 2 lambda I, the same matrix
// entry by entry as centred_cholesky() makes: factored on the Gram kernels
// of `level` (cholesky_simd.hpp), or with level scalar centred_cholesky()
// transposed in place.
bool logistic_factor(const double* g, const double* minus, bool upper, const double* zbar,
                     double n, double curvature, double lambda, std::size_t dim, int n_threads,
                     kitchen::simd_level level, double* out);

// The Gram matrix (or NULL) of a CV fold's held-out rows, checked against
// the total's size `dim`, as the factors' `minus`.
const double* fold_gram_or_null(const Rcpp::Nullable<Rcpp::NumericMatrix>& fold_gram,
                                std::size_t dim);

}  // namespace kitchen_glue
