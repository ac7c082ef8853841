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

// The kinds of feature map, each checked by map_problem() (validate_map.cpp).
enum class map_kind { rff, fastfood, rbin, nystrom };

// Why `map` cannot serve as a map of `kind`: its fields and shapes (cli
// markup naming the field), or R_NilValue. validate_map.cpp.
SEXP map_problem(SEXP map, map_kind kind);

}  // namespace kitchen_glue
