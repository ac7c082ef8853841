// A fresh n x m double matrix for a result the workers will fill: every
// element is written before it is returned, so it is not zeroed. No huge
// pages are asked for (unlike fwht()'s results and the logistic fit's
// copies, huge_pages.hpp): on these VMs a result's first touch in 2 MB pages
// was slower whenever the pages were fresh to the host, as a process's
// first large result mostly is (predict() of 1e5 x 2048 rff features in a
// new process: 3.5-3.9 s with the advice, 1.1-1.5 s without; later calls
// 0.6-0.8 s with it, 1.3-1.7 s without, bench/krr.R and one-off scripts),
// and most predict() results are made once.
#pragma once

#include <Rcpp.h>

#include <cstddef>
#include <initializer_list>

namespace kitchen_glue {

// Unprotected, like Rf_allocMatrix: wrap it in Rcpp::Shield.
inline SEXP alloc_result_matrix(std::size_t n, std::size_t m) {
  return Rf_allocMatrix(REALSXP, static_cast<int>(n), static_cast<int>(m));
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
