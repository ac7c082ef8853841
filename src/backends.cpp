// The backends' settings that R reads from C++ (R/backends.R): the SIMD
// level of this CPU and environment variables.
#include <Rcpp.h>

#include <cstdlib>
#include <string>

#include "kitchen/simd.hpp"
#include "simd_name.h"

// The SIMD level this CPU supports, by name ("scalar", "avx2", "avx512").
// [[Rcpp::export(rng = false)]]
std::string simd_detect_cpp() { return kitchen_glue::simd_name(kitchen::detect_simd()); }

// The value of the environment variable `name`, or `unset` when it is not
// set: Sys.getenv() without its R-level cost (about 1 us a call), for the
// settings read on every call (R/backends.R: threads and the SIMD level).
// [[Rcpp::export(rng = false)]]
SEXP env_value_cpp(const char* name, SEXP unset) {
  const char* value = std::getenv(name);
  return value ? Rf_mkString(value) : unset;
}
