// The backends' settings that R reads from C++ (R/backends.R): the SIMD
// level of this CPU, environment variables, and all settings of a call at
// once (backend_settings_cpp()).
#include <Rcpp.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "kitchen/simd.hpp"
#include "r_values.h"
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

namespace {

// A choice among `names` (a null-terminated list) by its index, or -1.
int choice_of(SEXP x, const char* const* names) {
  for (int i = 0; names[i] != nullptr; ++i) {
    if (kitchen_glue::is_string(x, names[i])) return i;
  }
  return -1;
}

}  // namespace

int kitchen_glue::quick_threads(SEXP n_threads, int available) {
  SEXP value = n_threads != R_NilValue ? n_threads : Rf_GetOption1(Rf_install("kitchen.threads"));
  if (value != R_NilValue) {
    if (!is_count(value)) return 0;
    return static_cast<int>(std::min(Rf_asReal(value), static_cast<double>(available)));
  }
  const char* env = std::getenv("KITCHEN_NUM_THREADS");
  if (env == nullptr || env[0] == '\0') return available;
  double count = 0;
  for (const char* c = env; *c; ++c) {
    if (*c < '0' || *c > '9' || count > 1e9) return 0;
    count = 10 * count + (*c - '0');
  }
  return count >= 1 ? static_cast<int>(std::min(count, static_cast<double>(available))) : 0;
}

int kitchen_glue::simd_cap_setting() {
  static const char* const levels[] = {"scalar", "avx2", "avx512", "auto", nullptr};
  SEXP option = Rf_GetOption1(Rf_install("kitchen.simd"));
  if (option != R_NilValue) return choice_of(option, levels);
  const char* env = std::getenv("KITCHEN_SIMD");
  if (env == nullptr) return simd_cap_auto;
  Rcpp::Shield<SEXP> value(Rf_mkString(env));
  return choice_of(value, levels);
}

// backend_settings() when every setting is valid (the usual case: none
// set), in one call: list(n_threads, simd, blas, lapack, reference_blas) as the R code
// resolves them, or NULL for the R code, which reports what is wrong.
// `available`: defaultNumThreads(); `blas_optimised`: blas_is_optimised().
// [[Rcpp::export(rng = false)]]
SEXP backend_settings_cpp(SEXP n_threads, int available, bool blas_optimised) {
  const int threads = kitchen_glue::quick_threads(n_threads, available);
  if (threads < 1) return R_NilValue;
  int cap = kitchen_glue::simd_cap_setting();
  if (cap < 0) return R_NilValue;
  if (cap == kitchen_glue::simd_cap_auto) cap = static_cast<int>(kitchen::simd_level::avx512);
  // simd_used(): R's BLAS or LAPACK take the dense work under "auto" only
  // when optimised and kitchen's SIMD kernels are off (blas_beats_kitchen()).
  const int used = std::min(cap, static_cast<int>(kitchen::detect_simd()));
  const bool blas_wins = blas_optimised && used == 0;
  static const char* const gemm[] = {"auto", "blas", "eigen", nullptr};
  static const char* const tridiagonal[] = {"auto", "kitchen", "lapack", nullptr};
  SEXP gemm_option = Rf_GetOption1(Rf_install("kitchen.gemm"));
  SEXP tridiagonal_option = Rf_GetOption1(Rf_install("kitchen.tridiagonal"));
  const int products = gemm_option == R_NilValue ? 0 : choice_of(gemm_option, gemm);
  const int reduction = tridiagonal_option == R_NilValue ? 0 : choice_of(tridiagonal_option, tridiagonal);
  if (products < 0 || reduction < 0) return R_NilValue;
  Rcpp::List out = Rcpp::List::create(
      Rcpp::Named("n_threads") = threads,
      Rcpp::Named("simd") = kitchen_glue::simd_name(static_cast<kitchen::simd_level>(cap)),
      Rcpp::Named("blas") = products == 1 || (products == 0 && blas_wins),
      Rcpp::Named("lapack") = reduction == 2 || (reduction == 0 && blas_wins),
      Rcpp::Named("reference_blas") = !blas_optimised);
  return out;
}
