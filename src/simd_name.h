// The SIMD level crosses from R by name ("scalar", "avx2" or "avx512", as
// R/backends.R's resolve_simd() gives it), as map classes do; here it becomes
// the core's simd_level, capped at what this CPU supports.
#pragma once

#include <Rcpp.h>

#include <cstring>

#include "kitchen/simd.hpp"

namespace kitchen_glue {

inline kitchen::simd_level simd_from_name(SEXP name) {
  if (TYPEOF(name) == STRSXP && XLENGTH(name) == 1 && STRING_ELT(name, 0) != NA_STRING) {
    const char* s = CHAR(STRING_ELT(name, 0));
    if (std::strcmp(s, "avx512") == 0) return kitchen::resolve_simd(kitchen::simd_level::avx512);
    if (std::strcmp(s, "avx2") == 0) return kitchen::resolve_simd(kitchen::simd_level::avx2);
    if (std::strcmp(s, "scalar") == 0) return kitchen::simd_level::scalar;
  }
  Rcpp::stop("simd must be one of \"scalar\", \"avx2\" or \"avx512\".");
}

inline const char* simd_name(kitchen::simd_level level) {
  return level == kitchen::simd_level::avx512 ? "avx512"
         : level == kitchen::simd_level::avx2 ? "avx2" : "scalar";
}

}  // namespace kitchen_glue
