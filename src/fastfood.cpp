// Glue for predict() and as.matrix() on Fastfood maps: R checks the data
// and hands over the map; here we check the map's fields, allocate the
// result and spread blocks of rows over threads.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "kitchen/fastfood.hpp"
#include "feature_fill.h"
#include "map_fields.h"
#include "result_matrix.h"
#include "parallel_chunks.h"
#include "sparse_input.h"
#include "simd_name.h"

namespace {

// Features of the n rows of `rows` into res (n x width, column stride n),
// blocks of rows spread over threads.
template <class Rows>
void fastfood_fill_rows(const kitchen::fastfood_map& map, const Rows& rows, std::size_t n,
                        double* res, int n_threads, kitchen::simd_level level) {
  const std::size_t width = map.width();
  const std::size_t block = kitchen::fastfood_block_rows;
  const std::size_t n_units = (n + block - 1) / block;
  const double log_p = std::log2(static_cast<double>(map.p)) + 2.0;
  const double unit_cost = block * (2.0 * map.n_blocks * map.p * log_p + 30.0 * width);
  // Workers must not throw: a failed scratch allocation is reported here.
  std::atomic<bool> failed(false);
  kitchen_glue::parallel_for_chunks(n_units, unit_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    try {
      kitchen::fastfood_rows(map, rows, begin * block, std::min(n, end * block), res, n, level);
    } catch (...) {
      failed.store(true);
    }
  });
  if (failed.load()) Rcpp::stop("Not enough memory for the Fastfood scratch buffers.");
}

}  // namespace

void kitchen_glue::fastfood_fill(const kitchen::fastfood_map& map,
                                 const kitchen::fastfood_dense_rows& rows, std::size_t n,
                                 double* res, int n_threads, kitchen::simd_level level) {
  fastfood_fill_rows(map, rows, n, res, n_threads, level);
}

void kitchen_glue::fastfood_fill(const kitchen::fastfood_map& map,
                                 const kitchen::fastfood_sparse_rows& rows, std::size_t n,
                                 double* res, int n_threads, kitchen::simd_level level) {
  fastfood_fill_rows(map, rows, n, res, n_threads, level);
}

namespace {

// Features of the n rows of `rows` (fastfood_dense_rows or
// fastfood_sparse_rows) into a new n x width matrix.
template <class Rows>
SEXP fastfood_run(const kitchen::fastfood_map& map, const Rows& rows, std::size_t n,
                  int n_threads, kitchen::simd_level level) {
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, map.width()));
  kitchen_glue::fastfood_fill(map, rows, n, REAL(out), n_threads, level);
  return out;
}

using kitchen_glue::is_doubles;
using kitchen_glue::map_field;

}  // namespace

// The features of dense rows x (the map's own centre and scale) written into
// `into`, a double matrix of nrow(x) x n_features reused from block to block
// by predict_rows() (see rff_features_into_cpp()). Same numbers as
// fastfood_features_cpp(). NULL, or what is wrong with the map or x.
// [[Rcpp::export(rng = false)]]
SEXP fastfood_features_into_cpp(SEXP x, SEXP map_list, int n_threads, SEXP simd, SEXP into) {
  kitchen::fastfood_map map;
  std::vector<double> folded;
  const char* problem = kitchen_glue::read_fastfood_map(map_list, false, map_field(map_list, "center"),
                                                        map_field(map_list, "scale"), map, folded);
  if (problem) return Rf_mkString(problem);
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || static_cast<std::size_t>(Rf_ncols(x)) != map.d) {
    return Rf_mkString("{.field d} must be the number of columns of the data.");
  }
  const std::size_t n = Rf_nrows(x);
  kitchen_glue::check_result_buffer(into, "into", {x}, n, map.width());
  const kitchen::fastfood_dense_rows rows{REAL(x), n};
  kitchen_glue::fastfood_fill(map, rows, n, REAL(into), n_threads, kitchen_glue::simd_from_name(simd));
  return R_NilValue;
}

// A view of the map's numbers, checked here rather than in R so that
// predict() on one row costs no R-level passes over them. Returns why the
// map cannot be used (a field missing, of the wrong type or size, or out of
// range), or nullptr. center and scale: d doubles (the map's own, or 0 and
// 1 for as.matrix()). Per-column bandwidths (unless all equal) are folded
// into the column scales, held in `folded`, with sigma = 1.
const char* kitchen_glue::read_fastfood_map(SEXP list, bool project_only, SEXP center, SEXP scale,
                                            kitchen::fastfood_map& map,
                                            std::vector<double>& folded) {
  if (TYPEOF(list) != VECSXP) return "the map must be a list.";
  SEXP d = map_field(list, "d"), n_features = map_field(list, "n_features");
  SEXP type = map_field(list, "type"), kernel = map_field(list, "kernel");
  SEXP signs = map_field(list, "signs"), perm = map_field(list, "perm");
  SEXP gauss = map_field(list, "gauss"), radial = map_field(list, "radial");
  SEXP phases = map_field(list, "phases");
  if (!Rf_isNumeric(d) || XLENGTH(d) != 1 || !(Rf_asReal(d) >= 1) || !(Rf_asReal(d) < 1e15)) {
    return "{.field d} must be a whole number >= 1.";
  }
  if (!Rf_isNumeric(n_features) || XLENGTH(n_features) != 1 || !(Rf_asReal(n_features) >= 1) ||
      !(Rf_asReal(n_features) < 1e15)) {
    return "{.field n_features} must be a whole number >= 1.";
  }
  if (TYPEOF(type) != STRSXP || XLENGTH(type) != 1) return "{.field type} must be one string.";
  const std::string kind = CHAR(STRING_ELT(type, 0));
  if (kind != "cos_sin" && kind != "cos_phase") {
    return "{.field type} must be {.val cos_sin} or {.val cos_phase}.";
  }
  if (TYPEOF(kernel) != VECSXP) return "{.field kernel} must be a kitchen kernel object.";
  SEXP sigma = map_field(kernel, "sigma");
  const double d_value = Rf_asReal(d);
  if (TYPEOF(sigma) != REALSXP || (XLENGTH(sigma) != 1 && static_cast<double>(XLENGTH(sigma)) != d_value)) {
    return "{.field kernel$sigma} must be one positive number or one per input column.";
  }
  for (R_xlen_t j = 0; j < XLENGTH(sigma); ++j) {
    if (!(REAL(sigma)[j] > 0) || !std::isfinite(REAL(sigma)[j])) {
      return "{.field kernel$sigma} must hold positive finite numbers.";
    }
  }
  // No `structure` field: a map saved before SORF existed, a Fastfood one.
  SEXP structure = map_field(list, "structure");
  if (structure != R_NilValue && (TYPEOF(structure) != STRSXP || XLENGTH(structure) != 1)) {
    return "{.field structure} must be {.val fastfood} or {.val sorf}.";
  }
  const std::string shape = structure == R_NilValue ? "fastfood" : CHAR(STRING_ELT(structure, 0));
  if (shape != "fastfood" && shape != "sorf") {
    return "{.field structure} must be {.val fastfood} or {.val sorf}.";
  }
  map.sorf = shape == "sorf";
  if (map.sorf) {
    if (!Rf_isMatrix(signs) || TYPEOF(signs) != RAWSXP || Rf_ncols(signs) % 3 != 0) {
      return "{.field signs} must be a raw matrix with three columns per block.";
    }
    SEXP name = map_field(kernel, "name");
    if (TYPEOF(name) != STRSXP || XLENGTH(name) != 1 ||
        std::string(CHAR(STRING_ELT(name, 0))) != "gaussian") {
      return "{.field kernel} must be the gaussian kernel for {.val sorf} blocks.";
    }
  } else if (!Rf_isMatrix(gauss) || TYPEOF(gauss) != REALSXP) {
    return "{.field gauss} must be a double matrix.";
  }

  map.d = static_cast<std::size_t>(Rf_asReal(d));
  map.p = map.sorf ? Rf_nrows(signs) : Rf_nrows(gauss);
  map.n_blocks = map.sorf ? Rf_ncols(signs) / 3 : Rf_ncols(gauss);
  map.type = kind == "cos_sin" ? kitchen::rff_type::cos_sin : kitchen::rff_type::cos_phase;
  const double nf = Rf_asReal(n_features);
  map.m = static_cast<std::size_t>(map.type == kitchen::rff_type::cos_sin ? nf / 2 : nf);
  const std::size_t n = map.p * map.n_blocks;
  const bool need_phases = map.type == kitchen::rff_type::cos_phase && !project_only;
  if (need_phases && !is_doubles(phases, map.m)) {
    return "{.field phases} must hold one double per frequency.";
  }
  if (!is_doubles(center, map.d)) return "{.field center} must hold {.field d} doubles.";
  if (!is_doubles(scale, map.d)) return "{.field scale} must hold {.field d} doubles.";
  if (map.sorf) {
    map.perm = nullptr;
    map.gauss = nullptr;
    map.radial = nullptr;
  } else {
    if (TYPEOF(signs) != RAWSXP || static_cast<std::size_t>(XLENGTH(signs)) != n) {
      return "{.field signs} must be a raw matrix the size of {.field gauss}.";
    }
    if (TYPEOF(perm) != INTSXP || static_cast<std::size_t>(XLENGTH(perm)) != n) {
      return "{.field perm} must be an integer matrix the size of {.field gauss}.";
    }
    if (!is_doubles(radial, map.m)) return "{.field radial} must hold one double per frequency.";
    map.perm = INTEGER(perm);
    map.gauss = REAL(gauss);
    map.radial = REAL(radial);
  }
  map.signs = RAW(signs);
  map.phase = need_phases ? REAL(phases) : nullptr;
  map.center = REAL(center);
  map.scale = REAL(scale);
  map.sigma = REAL(sigma)[0];
  const double* s = REAL(sigma);
  if (std::any_of(s, s + XLENGTH(sigma), [&](double v) { return v != s[0]; })) {
    folded.resize(map.d);
    for (std::size_t j = 0; j < map.d; ++j) folded[j] = map.scale[j] * s[j];
    map.scale = folded.data();
    map.sigma = 1.0;
  }
  map.project_only = project_only;
  return kitchen::fastfood_problem(map);
}

// Why a fastfood() object cannot be used, as a string for R to report, or
// NULL if it can.
// [[Rcpp::export(rng = false)]]
SEXP fastfood_map_problem_cpp(SEXP map_list) {
  kitchen::fastfood_map map;
  std::vector<double> folded;
  const char* problem = kitchen_glue::read_fastfood_map(map_list, false, map_field(map_list, "center"),
                                 map_field(map_list, "scale"), map, folded);
  return problem ? Rf_mkString(problem) : R_NilValue;
}

// x: dense n x d double matrix, or (when rows_as_columns) a d x n dgCMatrix
// whose columns are the rows; map_list: the fastfood() object; center, scale: d
// doubles (the map's, or 0 and 1 for as.matrix()). Returns the n x width
// features (n x m projections x V' when project_only), or a string saying
// what is wrong with the map (or with x's shape), for R to report.
// [[Rcpp::export(rng = false)]]
SEXP fastfood_features_cpp(SEXP x, bool rows_as_columns, SEXP map_list, SEXP center,
                           SEXP scale, bool project_only, int n_threads, SEXP simd) {
  kitchen::fastfood_map map;
  std::vector<double> folded;
  const char* problem = kitchen_glue::read_fastfood_map(map_list, project_only, center, scale, map, folded);
  if (problem) return Rf_mkString(problem);
  const kitchen::simd_level level =
      kitchen_glue::simd_from_name(simd);

  if (rows_as_columns) {
    if (!Rf_isS4(x) || kitchen_glue::dgc_problem(x)) {
      return Rf_mkString(kitchen_glue::malformed_data_message);
    }
    if (static_cast<std::size_t>(INTEGER(R_do_slot(x, Rf_install("Dim")))[0]) != map.d) {
      return Rf_mkString("{.field d} must be the number of columns of the data.");
    }
    const std::size_t n = INTEGER(R_do_slot(x, Rf_install("Dim")))[1];
    std::vector<double> base(map.d);  // the rescaled value of a zero entry
    for (std::size_t j = 0; j < map.d; ++j) base[j] = (0.0 - map.center[j]) / map.scale[j];
    const kitchen::fastfood_sparse_rows rows{INTEGER(R_do_slot(x, Rf_install("p"))),
                                             INTEGER(R_do_slot(x, Rf_install("i"))),
                                             REAL(R_do_slot(x, Rf_install("x"))), base.data()};
    return fastfood_run(map, rows, n, n_threads, level);
  }
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || static_cast<std::size_t>(Rf_ncols(x)) != map.d) {
    return Rf_mkString("{.field d} must be the number of columns of the data.");
  }
  const kitchen::fastfood_dense_rows rows{REAL(x), static_cast<std::size_t>(Rf_nrows(x))};
  return fastfood_run(map, rows, Rf_nrows(x), n_threads, level);
}
