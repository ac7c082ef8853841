// A fresh n x m double matrix for a result the workers will fill: every
// element is written before it is returned, so it is not zeroed. Huge pages
// are asked for, as numpy does for its arrays (huge_pages.hpp): which first
// touch is cheaper on these VMs changes from day to day; advised, the worst
// case measured is 3.9 s, not advised 9.7 s. predict() of 1e5 x 2048 rff
// features (1.6 GB, 2 threads, one-off scripts): on 11-27 (an AVX2
// machine) 3.5-3.9 s advised against 1.1-1.5 s not in a new process,
// 0.6-0.8 s against 1.3-1.7 s for later calls; on 11-30 (AVX-512) 2.5 s
// against 7.7-9.6 s in a new process and 0.33 s against 7.7-9.7 s later.
#pragma once

#include <Rcpp.h>

#include "kitchen/huge_pages.hpp"

#include <cstddef>
#include <initializer_list>

namespace kitchen_glue {

// Unprotected, like Rf_allocMatrix: wrap it in Rcpp::Shield.
inline SEXP alloc_result_matrix(std::size_t n, std::size_t m) {
  SEXP out = Rf_allocMatrix(REALSXP, static_cast<int>(n), static_cast<int>(m));
  kitchen::advise_huge_pages(REAL(out), n * m * sizeof(double));
  return out;
}

// A caller's n x m double matrix `buffer` (the argument `name`) that a
// result is written into instead of a fresh one (R/map.R block_features(),
// the calibration's fold factor), and none of `inputs`: an error otherwise.
inline void check_result_buffer(SEXP buffer, const char* name, std::initializer_list<SEXP> inputs,
                                std::size_t n, std::size_t m) {
  bool aliased = false;
  for (SEXP input : inputs) aliased = aliased || buffer == input;
  if (TYPEOF(buffer) != REALSXP || !Rf_isMatrix(buffer) || aliased ||
      static_cast<std::size_t>(Rf_nrows(buffer)) != n || static_cast<std::size_t>(Rf_ncols(buffer)) != m) {
    Rcpp::stop("%s must be a separate %d x %d double matrix.", name, n, m);
  }
}

}  // namespace kitchen_glue
