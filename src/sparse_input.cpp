// Glue for checking sparse input in R before anything (Matrix included)
// reads it.
#include <Rcpp.h>

#include "sparse_input.h"

// NULL when the dgCMatrix x is well formed, else a string saying what is not.
// [[Rcpp::export(rng = false)]]
SEXP sparse_problem_cpp(SEXP x) {
  const char* problem = kitchen_glue::dgc_problem(x);
  return problem ? Rf_mkString(problem) : R_NilValue;
}
