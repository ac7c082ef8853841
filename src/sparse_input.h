// Reading a Matrix::dgCMatrix from C++ only after its slots are checked.
#pragma once

#include <Rinternals.h>

#include <cstddef>

#include "kitchen/sparse_check.hpp"

namespace kitchen_glue {

// What the glue returns for a malformed dgCMatrix (R checks the data
// first, with a message naming the argument; this guards direct calls).
inline constexpr const char* malformed_data_message =
    "The data must be a well-formed dgCMatrix (its slots Dim, p, i and x agree).";

// The slot `name` of x when it exists and has R type `type`, else R_NilValue.
inline SEXP typed_slot(SEXP x, const char* name, SEXPTYPE type) {
  SEXP symbol = Rf_install(name);
  if (!R_has_slot(x, symbol)) return R_NilValue;
  SEXP slot = R_do_slot(x, symbol);
  return TYPEOF(slot) == type ? slot : R_NilValue;
}

// nullptr when x is an S4 object whose Dim, p, i and x slots form a valid
// compressed sparse column matrix (kitchen::csc_problem), else what is wrong.
inline const char* dgc_problem(SEXP x) {
  if (!Rf_isS4(x)) return "it must be a dgCMatrix";
  SEXP dim = typed_slot(x, "Dim", INTSXP), p = typed_slot(x, "p", INTSXP);
  SEXP i = typed_slot(x, "i", INTSXP), values = typed_slot(x, "x", REALSXP);
  if (dim == R_NilValue || XLENGTH(dim) != 2 || p == R_NilValue || XLENGTH(p) < 1 ||
      i == R_NilValue || values == R_NilValue) {
    return "its slots Dim, p and i must be integer and x double";
  }
  return kitchen::csc_problem(INTEGER(p), XLENGTH(p), INTEGER(i), XLENGTH(i), XLENGTH(values),
                              INTEGER(dim)[0], INTEGER(dim)[1]);
}

}  // namespace kitchen_glue
