// One call for small predict() and fwht() calls. For a few rows the R code
// of the general path (argument checks, validate_map(), map_input(),
// resolving threads and SIMD levels, one .Call each) cost ten times the
// arithmetic. Here the same checks run in one pass, and when every one of
// them passes (and the settings are the defaults' or need no R code) the
// result is computed as the general path computes it, bit for bit.
// Otherwise NULL is returned and R takes the general path, which reports
// what is wrong: so these functions never raise an error of their own, and
// they may refuse more than the general path does (an odd but valid
// setting just takes the long way).
#include <Rcpp.h>

#include <cmath>
#include <cstddef>
#include <vector>

#ifndef USE_FC_LEN_T
#define USE_FC_LEN_T
#endif
#include <Rconfig.h>
#include <R_ext/BLAS.h>
#ifndef FCONE
#define FCONE
#endif

#include "feature_fill.h"
#include "kitchen/fwht.hpp"
#include "kitchen/gemm_simd.hpp"
#include "kitchen/simd.hpp"
#include "map_fields.h"
#include "r_values.h"
#include "result_matrix.h"
#include "small_results.h"

// Defined with the general path's checks (validate.cpp, clip.cpp).
double first_nonfinite_cpp(SEXP x);
SEXP clip_columns_cpp(SEXP x, SEXP low, SEXP high);
SEXP rbin_columns_at(SEXP x, Rcpp::NumericMatrix pitch, Rcpp::NumericMatrix shift,
                     Rcpp::NumericVector center, Rcpp::NumericVector scale,
                     Rcpp::RawVector keys, Rcpp::IntegerVector n_bins, double n_buckets,
                     int n_threads, kitchen::simd_level level);
SEXP binned_scores_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericMatrix coefficients, double value,
                       int n_threads);

namespace {

using kitchen_glue::is_count;
using kitchen_glue::is_doubles;
using kitchen_glue::is_string;
using kitchen_glue::map_field;

// Work below which one thread is used (flops of the product): a thread
// pool's start costs more than it would save. The general path makes the
// same choice in parallel_for_chunks(), and results never depend on it.
const double small_work = 4e6;

// n_threads as resolve_threads() would accept it (the number itself does
// not matter here: small calls run on one thread).
bool threads_ok(SEXP n_threads) { return kitchen_glue::quick_threads(n_threads, 1) > 0; }

// The SIMD level when kitchen.simd / KITCHEN_SIMD are unset or "auto"
// (resolve_simd()), and kitchen's kernels, not R's BLAS, take the dense
// products (products_on_blas() is FALSE: kitchen.gemm unset, "auto" or
// "eigen", and a CPU with AVX2 or AVX-512). Else scalar, meaning "take the
// general path".
kitchen::simd_level default_level() {
  if (kitchen_glue::simd_cap_setting() != kitchen_glue::simd_cap_auto) {
    return kitchen::simd_level::scalar;
  }
  SEXP gemm = Rf_GetOption1(Rf_install("kitchen.gemm"));
  if (gemm != R_NilValue && !is_string(gemm, "auto") && !is_string(gemm, "eigen")) {
    return kitchen::simd_level::scalar;
  }
  return kitchen::detect_simd();
}

// clip_problem(): NULL, or the training range of the d columns.
bool clip_ok(SEXP clip, std::size_t d) {
  if (clip == R_NilValue) return true;
  if (TYPEOF(clip) != VECSXP) return false;
  SEXP low = map_field(clip, "low"), high = map_field(clip, "high");
  if (!is_doubles(low, d) || !is_doubles(high, d)) return false;
  for (std::size_t j = 0; j < d; ++j) {
    if (ISNAN(REAL(low)[j]) || ISNAN(REAL(high)[j]) || REAL(low)[j] > REAL(high)[j]) return false;
  }
  return true;
}

SEXP column_names(SEXP x) {
  SEXP dimnames = Rf_getAttrib(x, R_DimNamesSymbol);
  return dimnames == R_NilValue ? R_NilValue : VECTOR_ELT(dimnames, 1);
}

SEXP row_names(SEXP x) {
  SEXP dimnames = Rf_getAttrib(x, R_DimNamesSymbol);
  return dimnames == R_NilValue ? R_NilValue : VECTOR_ELT(dimnames, 0);
}

// New rows that map_input() would accept for `map` (checked by the caller,
// with `d` columns) and that make a small call: a double matrix without
// class, of 1 to `max_rows` finite rows, with valid
// settings (resolve_threads(), resolve_simd(), products_on_blas()): the rows
// as the features read them (clipped; protect them), or R_NilValue.
// `names_free`: the names the rows would be matched by, when x has column
// names, are NULL.
SEXP small_rows(SEXP map, SEXP x, SEXP n_threads, bool names_free, std::size_t d,
                std::size_t max_rows, kitchen::simd_level& level) {
  SEXP clip = map_field(map, "clip");
  if (!clip_ok(clip, d)) return R_NilValue;
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || OBJECT(x)) return R_NilValue;
  const std::size_t n = Rf_nrows(x);
  if (n < 1 || n > max_rows || static_cast<std::size_t>(Rf_ncols(x)) != d) {
    return R_NilValue;
  }
  if (column_names(x) != R_NilValue && (!names_free || map_field(map, "col_names") != R_NilValue)) {
    return R_NilValue;
  }
  if (first_nonfinite_cpp(x) > 0 || !threads_ok(n_threads)) return R_NilValue;
  level = default_level();
  if (level == kitchen::simd_level::scalar) return R_NilValue;
  return clip == R_NilValue ? x : clip_columns_cpp(x, map_field(clip, "low"), map_field(clip, "high"));
}

std::size_t map_d(SEXP map) { return static_cast<std::size_t>(Rf_asReal(map_field(map, "d"))); }

// A map and new rows that the general path would accept and compute on
// kitchen's SIMD kernels, on one thread: the map's view (from the cache of
// small maps) and the rows as the features read them.
struct small_rff_call {
  kitchen_glue::rff_view view;
  kitchen::simd_level level = kitchen::simd_level::scalar;
  SEXP x = R_NilValue;  // protected by the caller once set
  std::size_t n = 0;
};

// validate_map() for an rff map (checked first among the map classes, so
// any object of class kitchen_rff), then small_rows().
bool read_small_rff_call(SEXP map, SEXP x, SEXP n_threads, bool names_free, std::size_t max_rows,
                         small_rff_call& call) {
  if (TYPEOF(map) != VECSXP || !Rf_inherits(map, "kitchen_rff")) return false;
  if (kitchen_glue::map_problem(map, kitchen_glue::map_kind::rff) != R_NilValue) return false;
  if (kitchen_glue::read_rff_map(map, call.view, true) != nullptr) return false;
  if (call.view.transposed == nullptr) return false;  // a large map: not a small call
  call.x = small_rows(map, x, n_threads, names_free, map_d(map), max_rows, call.level);
  if (call.x == R_NilValue) return false;
  call.n = Rf_nrows(x);
  return static_cast<double>(call.n) * call.view.d * call.view.m <= small_work;
}

void fill_features(const small_rff_call& call, double* out) {
  const kitchen_glue::rff_view& v = call.view;
  kitchen_glue::rff_dense_fill(REAL(call.x), call.n, v.d, v.projection, v.m, v.offset.data(),
                               v.kind, out, false, 1, call.level, v.transposed);
}

}  // namespace

// predict(<rff map>, x, n_threads): the features, as rff_features() makes
// them, or NULL (see the top of this file).
// [[Rcpp::export(rng = false)]]
SEXP rff_predict_small_cpp(SEXP map, SEXP x, SEXP n_threads) {
  small_rff_call call;
  if (!read_small_rff_call(map, x, n_threads, true, kitchen::gemm_transposed_max_rows, call)) {
    return R_NilValue;
  }
  Rcpp::Shield<SEXP> rows(call.x);
  const std::size_t width = kitchen::rff_n_features(call.view.kind, call.view.m);
  // From R's allocator: the pool of small_results.h made these results
  // slower (2 to 9 rows: 4 to 6 times), unlike fwht()'s.
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(call.n, width));
  fill_features(call, REAL(out));
  SEXP names = row_names(x);
  if (names != R_NilValue) {
    Rcpp::Shield<SEXP> dimnames(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(dimnames, 0, names);
    Rf_setAttrib(out, R_DimNamesSymbol, dimnames);
  }
  return out;
}

namespace {

// Scores of rows `rows` (n, small_rows()) from the bins of an rbin map,
// as binned_scores() computes them, or R_NilValue.
SEXP rbin_small_scores(SEXP map, SEXP rows, SEXP coefficients) {
  const bool hashed = map_field(map, "n_buckets") != R_NilValue;
  try {
    Rcpp::RawVector no_keys(0);
    Rcpp::IntegerVector no_bins(0);
    Rcpp::Shield<SEXP> cols(rbin_columns_at(
        rows, map_field(map, "pitch"), map_field(map, "shift"), map_field(map, "center"),
        map_field(map, "scale"), hashed ? SEXP(no_keys) : map_field(map, "keys"),
        hashed ? SEXP(no_bins) : map_field(map, "n_bins"),
        hashed ? Rf_asReal(map_field(map, "n_buckets")) : 0.0, 1, kitchen::detect_simd()));
    if (TYPEOF(cols) != INTSXP) return R_NilValue;
    SEXP out = binned_scores_cpp(SEXP(cols), coefficients,
                                 1 / std::sqrt(Rf_asReal(map_field(map, "n_grids"))), 1);
    return TYPEOF(out) == REALSXP ? out : R_NilValue;
  } catch (...) {
    return R_NilValue;
  }
}

}  // namespace

// predict(<krr fit>, x, n_threads = , block_size = , verbose =) for type
// "response" of a least-squares fit without terms, on an rff or rbin map:
// what predict() returns (the n x k scores as predict_rows() makes them,
// dropped to a vector for a vector response), or NULL. For rff maps,
// features %*% coefficients as R's matprod() computes it (on R's BLAS),
// plus the intercepts. validate_fit()'s checks of the fields predict() uses
// run here too.
// [[Rcpp::export(rng = false)]]
SEXP krr_predict_small_cpp(SEXP fit, SEXP x, SEXP n_threads, SEXP block_size, SEXP verbose) {
  if (TYPEOF(fit) != VECSXP || !Rf_inherits(fit, "kitchen_krr")) return R_NilValue;
  if (!is_count(block_size) || TYPEOF(verbose) != LGLSXP || XLENGTH(verbose) != 1 ||
      LOGICAL(verbose)[0] == NA_LOGICAL) {
    return R_NilValue;
  }
  SEXP loss = map_field(fit, "loss");
  if (loss != R_NilValue && !is_string(loss, "squared")) return R_NilValue;
  if (map_field(fit, "terms") != R_NilValue) return R_NilValue;
  SEXP map = map_field(fit, "map");
  if (TYPEOF(map) != VECSXP) return R_NilValue;
  const bool names_free = map_field(fit, "col_names") == R_NilValue;
  // validate_map() takes the first of rff, fastfood, rbin, nystrom that the
  // map is; predict_rows() sends any map of class kitchen_rbin to rbin code.
  const bool binned = Rf_inherits(map, "kitchen_rbin");
  small_rff_call call;
  SEXP rows_sexp = R_NilValue;
  if (binned) {
    if (Rf_inherits(map, "kitchen_rff") || Rf_inherits(map, "kitchen_fastfood") ||
        kitchen_glue::map_problem(map, kitchen_glue::map_kind::rbin) != R_NilValue ||
        map_field(map, "clip") == R_NilValue) {
      return R_NilValue;  // without clipping, the rows' range is checked in R
    }
    rows_sexp = small_rows(map, x, n_threads, names_free, map_d(map), 1, call.level);
    if (rows_sexp == R_NilValue) return R_NilValue;
  } else {
    // %*% takes R's BLAS for finite numbers under these settings of matprod.
    SEXP matprod = Rf_GetOption1(Rf_install("matprod"));
    if (!is_string(matprod, "default") && !is_string(matprod, "blas") &&
        !is_string(matprod, "default.simd")) {
      return R_NilValue;
    }
    if (!read_small_rff_call(map, x, n_threads, names_free, 1, call)) return R_NilValue;
    rows_sexp = call.x;
  }
  Rcpp::Shield<SEXP> rows(rows_sexp);
  const std::size_t n = Rf_nrows(x);
  // fit_problem(): coefficients (one row per feature, finite: for rbin maps,
  // those used, checked by binned_scores_cpp()), intercepts, response.
  const double width = Rf_asReal(map_field(map, "n_features"));
  SEXP w = map_field(fit, "coefficients");
  if (TYPEOF(w) != REALSXP || !Rf_isMatrix(w) || OBJECT(w) ||
      static_cast<double>(Rf_nrows(w)) != width || Rf_ncols(w) < 1 ||
      (!binned && first_nonfinite_cpp(w) > 0)) {
    return R_NilValue;
  }
  const int k = Rf_ncols(w);
  SEXP intercept = map_field(fit, "intercept");
  if (!is_doubles(intercept, k) || OBJECT(intercept) || first_nonfinite_cpp(intercept) > 0) {
    return R_NilValue;
  }
  SEXP response = map_field(fit, "response");
  if (TYPEOF(response) != VECSXP) return R_NilValue;
  SEXP type = map_field(response, "type"), names = map_field(response, "names");
  const bool vector = is_string(type, "vector"), classes = is_string(type, "class");
  if (!(vector && k == 1) && !is_string(type, "matrix") && !classes) return R_NilValue;
  if (classes) {
    SEXP levels = map_field(response, "levels");
    if (TYPEOF(levels) != STRSXP || XLENGTH(levels) != k) return R_NilValue;
  }
  if (names != R_NilValue && (TYPEOF(names) != STRSXP || XLENGTH(names) != k)) return R_NilValue;

  Rcpp::Shield<SEXP> out(binned ? rbin_small_scores(map, rows, w)
                                : Rf_allocMatrix(REALSXP, static_cast<int>(n), k));
  if (out == R_NilValue) return R_NilValue;
  double* s = REAL(out);
  if (!binned) {
    const std::size_t nf = static_cast<std::size_t>(width);
    std::vector<double> z(n * nf);
    fill_features(call, z.data());
    const char trans_n = 'N', trans_t = 'T';
    const double one = 1.0, zero = 0.0;
    const int ione = 1, nr = static_cast<int>(n), nc = static_cast<int>(nf);
    if (k == 1) {
      F77_CALL(dgemv)(&trans_n, &nr, &nc, &one, z.data(), &nr, REAL(w), &ione, &zero, s,
                      &ione FCONE);
    } else if (nr == 1) {
      F77_CALL(dgemv)(&trans_t, &nc, &k, &one, REAL(w), &nc, z.data(), &ione, &zero, s,
                      &ione FCONE);
    } else {
      F77_CALL(dgemm)(&trans_n, &trans_n, &nr, &k, &nc, &one, z.data(), &nr, REAL(w), &nc, &zero,
                      s, &nr FCONE FCONE);
    }
  }
  for (int j = 0; j < k; ++j) {
    for (std::size_t i = 0; i < n; ++i) s[i + j * n] = s[i + j * n] + REAL(intercept)[j];
  }
  SEXP row = row_names(x);
  Rf_setAttrib(out, R_DimNamesSymbol, R_NilValue);
  if (vector) {
    // predict() drops the column, as drop() (R's DropDims) does to this n x 1
    // matrix: the row names; for one row, the one name of the two given.
    Rf_setAttrib(out, R_DimSymbol, R_NilValue);
    SEXP kept = n > 1 ? row : (row == R_NilValue) != (names == R_NilValue)
                                  ? (row != R_NilValue ? row : names) : R_NilValue;
    if (kept != R_NilValue) Rf_setAttrib(out, R_NamesSymbol, kept);
    return out;
  }
  if (row != R_NilValue || names != R_NilValue) {
    Rcpp::Shield<SEXP> dimnames(Rf_allocVector(VECSXP, 2));
    SET_VECTOR_ELT(dimnames, 0, row);
    SET_VECTOR_ELT(dimnames, 1, names);
    Rf_setAttrib(out, R_DimNamesSymbol, dimnames);
  }
  return out;
}

// fwht(x, normalize, n_threads) for a double vector or matrix of at most
// 2^16 numbers, finite, whose transform is finite too: fwht_cpp()'s result,
// or NULL.
// [[Rcpp::export(rng = false)]]
SEXP fwht_small_cpp(SEXP x, SEXP normalize, SEXP n_threads) {
  if (TYPEOF(x) != REALSXP || OBJECT(x)) return R_NilValue;
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (dim != R_NilValue && XLENGTH(dim) > 2) return R_NilValue;
  const std::size_t len = XLENGTH(x);
  const std::size_t n = dim != R_NilValue && XLENGTH(dim) == 2 ? INTEGER(dim)[0] : len;
  if (len < 1 || len > (std::size_t(1) << 16) || n < 1 || (n & (n - 1)) != 0) return R_NilValue;
  if (TYPEOF(normalize) != LGLSXP || XLENGTH(normalize) != 1 || LOGICAL(normalize)[0] == NA_LOGICAL) {
    return R_NilValue;
  }
  if (!threads_ok(n_threads)) return R_NilValue;
  if (kitchen_glue::simd_cap_setting() != kitchen_glue::simd_cap_auto) return R_NilValue;
  const kitchen::simd_level level = kitchen::detect_simd();
  const double scale = LOGICAL(normalize)[0] ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0;
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_small_result(REALSXP, len));
  DUPLICATE_ATTRIB(out, x);
  const double* input = REAL(x);
  double* output = REAL(out);
  for (std::size_t j = 0; j < len / n; ++j) {
    if (!kitchen::fwht_checked(input + j * n, output + j * n, n, level, scale)) return R_NilValue;
  }
  for (std::size_t i = 0; i < len; ++i) {
    if (!std::isfinite(output[i])) return R_NilValue;  // overflow: the general path rescales
  }
  return out;
}
