// G += Z'Z (upper triangle) in place, for gram_update_cpp() and the fit's
// block loop (gram.cpp).
#pragma once

#include <cstddef>

#include "kitchen/simd.hpp"

namespace kitchen_glue {

void gram_update_in_place(const double* z, std::size_t rows, std::size_t dim, double* g,
                          bool use_blas, int n_threads, kitchen::simd_level level);

}  // namespace kitchen_glue
