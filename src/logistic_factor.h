// The factor of a logistic preconditioner (R/krr_logistic.R, logistic_bound()),
// shared by logistic_bound_factor_cpp() and the warm start's curvature in
// logistic_bound.cpp.
#pragma once

#include <cstddef>

namespace kitchen_glue {

// out (dim x dim, column-major): the upper Cholesky factor (zeros below the
// diagonal) of curvature * (g - n zbar zbar') + 2 lambda I, or of
// curvature * g + 2 lambda I for a g already centred; g's lower triangle is
// read, or its upper one when `upper`. Each entry as R computes it:
// c * (g - n * (zbar_i * zbar_j)). False when not positive definite to
// double precision. By blocks of columns over threads, with interrupt
// checks between blocks.
bool logistic_factor(const double* g, bool upper, bool centred, const double* zbar, double n,
                     double curvature, double lambda, std::size_t dim, int n_threads, double* out);

}  // namespace kitchen_glue
