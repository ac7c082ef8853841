// Reading the fields of a map object (a named R list) from C++.
#pragma once

#include <Rinternals.h>

#include <cstddef>
#include <cstring>

namespace kitchen_glue {

// The list's field `name` (R_NilValue if absent or not a named list).
inline SEXP map_field(SEXP map, const char* name) {
  if (TYPEOF(map) != VECSXP) return R_NilValue;
  SEXP names = Rf_getAttrib(map, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP) return R_NilValue;
  for (R_xlen_t i = 0; i < XLENGTH(map); ++i) {
    if (std::strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return VECTOR_ELT(map, i);
  }
  return R_NilValue;
}

inline bool is_doubles(SEXP x, std::size_t n) {
  return TYPEOF(x) == REALSXP && static_cast<std::size_t>(XLENGTH(x)) == n;
}

}  // namespace kitchen_glue
