// R values tested in C++ as kitchen's R checks test them (R/checks.R), for
// the one-call paths that must accept exactly what the R code accepts and
// leave the rest to it (backends.cpp, small_calls.cpp).
#pragma once

#include <Rinternals.h>

#include <cmath>
#include <cstring>

namespace kitchen_glue {

// check_count(): one whole number >= 1 (a value with a class, such as a
// factor, is left to R).
inline bool is_count(SEXP x) {
  if ((TYPEOF(x) != REALSXP && TYPEOF(x) != INTSXP) || XLENGTH(x) != 1 || OBJECT(x)) return false;
  const double v = Rf_asReal(x);
  return std::isfinite(v) && v >= 1 && v == std::trunc(v);
}

// One string equal to `value`.
inline bool is_string(SEXP x, const char* value) {
  return TYPEOF(x) == STRSXP && XLENGTH(x) == 1 && STRING_ELT(x, 0) != NA_STRING &&
         std::strcmp(CHAR(STRING_ELT(x, 0)), value) == 0;
}

// resolve_threads(): the count asked for by `n_threads`, the option
// kitchen.threads or plain digits in KITCHEN_NUM_THREADS, capped at
// `available`; 0 when R must look (a value it refuses, or digits its
// parser may read otherwise). backends.cpp.
int quick_threads(SEXP n_threads, int available);

// resolve_simd()'s request: the option kitchen.simd, else KITCHEN_SIMD, as
// an index into {"scalar", "avx2", "avx512", "auto"} (unset: "auto"); -1
// for a value R refuses. backends.cpp.
int simd_cap_setting();
constexpr int simd_cap_auto = 3;

}  // namespace kitchen_glue
