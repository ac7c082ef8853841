// The checks validate_map() runs on every predict(): the fields every map
// has, and the shapes of an rff or rbin map's numbers. In C++ because the
// same checks as R code cost more than computing the features of one row.
// Returns what is wrong (cli markup naming the field) or NULL.
#include <Rcpp.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>

#include "map_fields.h"

namespace {

using kitchen_glue::is_doubles;
using kitchen_glue::map_field;

const double max_int = 2147483647.0;

// One whole number >= 1 (and small enough to be a size).
bool is_count(SEXP x) {
  if ((TYPEOF(x) != REALSXP && TYPEOF(x) != INTSXP) || XLENGTH(x) != 1) return false;
  const double v = Rf_asReal(x);  // NA_integer_ becomes NA_real_
  return v >= 1 && v < 1e15 && v == std::floor(v);
}

bool is_string_in(SEXP x, std::initializer_list<const char*> values) {
  if (TYPEOF(x) != STRSXP || XLENGTH(x) != 1 || STRING_ELT(x, 0) == NA_STRING) return false;
  for (const char* v : values) {
    if (std::strcmp(CHAR(STRING_ELT(x, 0)), v) == 0) return true;
  }
  return false;
}

bool is_positive_number(SEXP x) {
  if ((TYPEOF(x) != REALSXP && TYPEOF(x) != INTSXP) || XLENGTH(x) != 1) return false;
  const double v = Rf_asReal(x);
  return v > 0 && std::isfinite(v);
}

// The kernel's fields but its bandwidth (see sigma_ok).
bool kernel_ok(SEXP kernel) {
  if (TYPEOF(kernel) != VECSXP || !Rf_inherits(kernel, "kitchen_kernel")) return false;
  SEXP name = map_field(kernel, "name");
  if (!is_string_in(name, {"gaussian", "laplacian", "cauchy", "matern"})) return false;
  return std::strcmp(CHAR(STRING_ELT(name, 0)), "matern") != 0 ||
         is_positive_number(map_field(kernel, "nu"));
}

// n doubles, all finite (and > 0 if positive).
bool finite_doubles(SEXP x, std::size_t n, bool positive) {
  if (!is_doubles(x, n)) return false;
  const double* v = REAL(x);
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i]) || (positive && !(v[i] > 0))) return false;
  }
  return true;
}

// One bandwidth, or one per input column: positive finite doubles.
bool sigma_ok(SEXP sigma, std::size_t d) {
  if (TYPEOF(sigma) != REALSXP) return is_positive_number(sigma);
  const std::size_t n = static_cast<std::size_t>(XLENGTH(sigma));
  return (n == 1 || n == d) && finite_doubles(sigma, n, true);
}

bool is_double_matrix(SEXP x, std::size_t rows, std::size_t cols) {
  return TYPEOF(x) == REALSXP && Rf_isMatrix(x) && static_cast<std::size_t>(Rf_nrows(x)) == rows &&
         static_cast<std::size_t>(Rf_ncols(x)) == cols;
}

std::string str(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

SEXP problem(const std::string& what) { return Rf_mkString(what.c_str()); }

}  // namespace

// A fastfood map's numbers are checked by fastfood_map_problem_cpp().
SEXP kitchen_glue::map_problem(SEXP map, kitchen_glue::map_kind kind) {
  using kitchen_glue::map_kind;
  SEXP d_field = map_field(map, "d"), n_features = map_field(map, "n_features");
  if (!is_count(d_field)) return problem("{.field d} must be a whole number >= 1.");
  if (!is_count(n_features)) return problem("{.field n_features} must be a whole number >= 1.");
  const std::size_t d = static_cast<std::size_t>(Rf_asReal(d_field));
  const double nf = Rf_asReal(n_features);
  if (!kernel_ok(map_field(map, "kernel"))) return problem("{.field kernel} must be a kitchen kernel object.");
  if (!sigma_ok(map_field(map_field(map, "kernel"), "sigma"), d)) {
    return problem("{.field kernel$sigma} must be one positive number or " + str(d) +
                   " (one per input column).");
  }
  if (!is_string_in(map_field(map, "scaling"), {"standard", "minmax", "none"})) {
    return problem("{.field scaling} must be {.val standard}, {.val minmax} or {.val none}.");
  }
  if (!finite_doubles(map_field(map, "center"), d, false)) {
    return problem("{.field center} must hold " + str(d) + " finite doubles.");
  }
  if (!finite_doubles(map_field(map, "scale"), d, true)) {
    return problem("{.field scale} must hold " + str(d) + " positive finite doubles.");
  }
  SEXP names = map_field(map, "col_names");
  if (names != R_NilValue) {
    bool ok = TYPEOF(names) == STRSXP && static_cast<std::size_t>(XLENGTH(names)) == d;
    for (std::size_t j = 0; ok && j < d; ++j) ok = STRING_ELT(names, j) != NA_STRING;
    if (!ok) return problem("{.field col_names} must be NULL or " + str(d) + " column names.");
  }

  if (kind == map_kind::nystrom) {
    const std::size_t m = static_cast<std::size_t>(nf);
    SEXP centers = map_field(map, "centers"), normalization = map_field(map, "normalization");
    if (!is_double_matrix(centers, m, d) || !finite_doubles(centers, m * d, false)) {
      return problem("{.field centers} must be a " + str(nf) + " x " + str(d) +
                     " matrix of finite doubles (one row per feature).");
    }
    if (!is_double_matrix(normalization, m, m) || !finite_doubles(normalization, m * m, false)) {
      return problem("{.field normalization} must be a " + str(nf) + " x " + str(nf) +
                     " matrix of finite doubles.");
    }
    return R_NilValue;
  }

  if (kind == map_kind::rff || kind == map_kind::fastfood) {
    SEXP type = map_field(map, "type");
    if (!is_string_in(type, {"cos_sin", "cos_phase"})) {
      return problem("{.field type} must be {.val cos_sin} or {.val cos_phase}.");
    }
    const bool cos_sin = std::strcmp(CHAR(STRING_ELT(type, 0)), "cos_sin") == 0;
    if (cos_sin && std::fmod(nf, 2.0) != 0) {
      return problem("{.field n_features} must be even for {.val cos_sin} features.");
    }
    if (kind == map_kind::fastfood) return R_NilValue;
    const std::size_t m = static_cast<std::size_t>(cos_sin ? nf / 2 : nf);
    if (!is_double_matrix(map_field(map, "projection"), d, m)) {
      return problem("{.field projection} must be a " + str(d) + " x " + str(m) + " double matrix.");
    }
    if (!cos_sin && !is_doubles(map_field(map, "phases"), m)) {
      return problem("{.field phases} must hold " + str(m) + " doubles.");
    }
    return R_NilValue;  // finiteness: see rff_features_cpp
  }

  SEXP n_grids_field = map_field(map, "n_grids");
  if (!is_count(n_grids_field)) return problem("{.field n_grids} must be a whole number >= 1.");
  const std::size_t n_grids = static_cast<std::size_t>(Rf_asReal(n_grids_field));
  const std::string shape = str(d) + " x " + str(n_grids);
  SEXP pitch = map_field(map, "pitch"), shift = map_field(map, "shift");
  if (!is_double_matrix(pitch, d, n_grids) || !finite_doubles(pitch, d * n_grids, true)) {
    return problem("{.field pitch} must be a " + shape + " matrix of positive finite doubles.");
  }
  if (!is_double_matrix(shift, d, n_grids) || !finite_doubles(shift, d * n_grids, false)) {
    return problem("{.field shift} must be a " + shape + " matrix of finite doubles.");
  }
  SEXP n_buckets = map_field(map, "n_buckets");
  if (n_buckets != R_NilValue) {
    if (!is_count(n_buckets)) return problem("{.field n_buckets} must be NULL or a whole number >= 1.");
    if (nf != n_grids * Rf_asReal(n_buckets) || nf > max_int) {
      return problem("{.field n_features} must be {.field n_grids} x {.field n_buckets}, at most 2^31 - 1.");
    }
    return R_NilValue;
  }
  SEXP n_bins = map_field(map, "n_bins");
  bool ok = TYPEOF(n_bins) == INTSXP && static_cast<std::size_t>(XLENGTH(n_bins)) == n_grids;
  double total = 0;
  for (std::size_t g = 0; ok && g < n_grids; ++g) {
    ok = INTEGER(n_bins)[g] >= 0;  // NA_integer_ is negative
    total += INTEGER(n_bins)[g];
  }
  if (!ok) return problem("{.field n_bins} must hold " + str(n_grids) + " non-negative integers.");
  SEXP keys = map_field(map, "keys");
  if (TYPEOF(keys) != RAWSXP || static_cast<double>(XLENGTH(keys)) != 8 * total) {
    return problem("{.field keys} must be a raw vector of " + str(8 * total) +
                   " bytes (8 per bin in {.field n_bins}).");
  }
  if (nf != total) return problem("{.field n_features} must be the number of bins in {.field n_bins}.");
  return R_NilValue;  // the keys' order: see rbin_columns_cpp
}

// validate_map()'s check of the fields and shapes, for the map class it
// found (map_class: "kitchen_rff", "kitchen_fastfood", "kitchen_rbin" or
// "kitchen_nystrom"), by name.
// [[Rcpp::export(rng = false)]]
SEXP map_problem_cpp(SEXP map, std::string map_class) {
  using kitchen_glue::map_kind;
  map_kind kind;
  if (map_class == "kitchen_rff") {
    kind = map_kind::rff;
  } else if (map_class == "kitchen_fastfood") {
    kind = map_kind::fastfood;
  } else if (map_class == "kitchen_rbin") {
    kind = map_kind::rbin;
  } else if (map_class == "kitchen_nystrom") {
    kind = map_kind::nystrom;
  } else {
    return problem("the class must be one of kitchen's map classes.");
  }
  return kitchen_glue::map_problem(map, kind);
}
