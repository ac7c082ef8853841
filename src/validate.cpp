// Glue for argument checks that need a fast pass over the data.
#include <Rcpp.h>

#include "kitchen/finite.hpp"

// 1-based position of the first NA/NaN/Inf in a double vector, 0 if none.
// [[Rcpp::export(rng = false)]]
double first_nonfinite_cpp(SEXP x) {
  const std::size_t n = static_cast<std::size_t>(XLENGTH(x));
  const std::size_t i = kitchen::first_nonfinite(REAL(x), n);
  return i == n ? 0.0 : static_cast<double>(i) + 1.0;
}
