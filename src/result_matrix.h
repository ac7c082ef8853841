// A fresh n x m double matrix for a result the workers will fill: every
// element is written before it is returned, so it is not zeroed, and large
// results ask for huge pages before their first touch (see huge_pages.hpp).
#pragma once

#include <Rcpp.h>

#include <cstddef>

#include "kitchen/huge_pages.hpp"

namespace kitchen_glue {

// Unprotected, like Rf_allocMatrix: wrap it in Rcpp::Shield.
inline SEXP alloc_result_matrix(std::size_t n, std::size_t m) {
  SEXP out = Rf_allocMatrix(REALSXP, static_cast<int>(n), static_cast<int>(m));
  kitchen::advise_huge_pages(REAL(out), n * m * sizeof(double));
  return out;
}

}  // namespace kitchen_glue
