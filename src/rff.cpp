// Glue for predict() on rff maps: R checks and prepares the numbers; here we
// allocate the result and spread the rows (dense) or frequencies (sparse)
// over threads.
#include "blas_gemm.h"
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>
#include <string>

#include "kitchen/gemm_simd.hpp"
#include "kitchen/rff.hpp"
#include "packed_product_threads.h"
#include "parallel_chunks.h"
#include "feature_fill.h"
#include "map_fields.h"
#include "result_matrix.h"
#include "sparse_input.h"
#include "simd_name.h"

namespace {

// Rows per block of the dense Eigen path. Fixed, so that each row's product
// is computed with the same blocking whatever the number of threads.
const std::size_t rff_block_rows = 64;

// Rows per BLAS call: large calls let an optimised BLAS use all its threads
// (16384 rows ran 1.8x faster than 2048 at d = 64, m = 1024 with OpenBLAS),
// while ~4 GFlop per call keeps interrupts prompt. Depends only on d and m.
std::size_t blas_chunk_rows(std::size_t d, std::size_t m) {
  const double flops_per_call = 4e9;
  const double rows = flops_per_call / (2.0 * static_cast<double>(d) * static_cast<double>(m));
  return std::max<std::size_t>(1024, static_cast<std::size_t>(rows));
}

// X P on kitchen's AVX2 / AVX-512 micro-kernels (gemm_simd.hpp), each unit's
// cosines computed while its block of the result is still in cache. The
// packing buffer of a unit is allocated inside the worker, where a failure
// is caught and reported afterwards.
void rff_dense_packed(const double* x, std::size_t n, std::size_t d, const double* p,
                      std::size_t m, const double* offset, kitchen::rff_type kind,
                      double* res, int n_threads, kitchen::simd_level level,
                      const double* transposed) {
  if (transposed && n <= kitchen::gemm_transposed_max_rows) {  // same sums again
    const std::size_t group = 64;
    kitchen_glue::parallel_for_chunks((m + group - 1) / group, 2.0 * n * d * group, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      const std::size_t j0 = begin * group, j1 = std::min(m, end * group);
      kitchen::gemm_transposed_columns(x, n, n, d, transposed, kitchen::gemm_transposed_stride(m),
                                       j0, j1, res, n, level);
      kitchen::rff_nonlinearity(res, n, n, m, j0, j1, offset, kind, level);
    });
    return;
  }
  if (n <= kitchen::gemm_direct_max_rows) {  // same sums, without packing P
    const std::size_t group = 64;
    kitchen_glue::parallel_for_chunks((m + group - 1) / group, 2.0 * n * d * group, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      const std::size_t j0 = begin * group, j1 = std::min(m, end * group);
      kitchen::gemm_direct_columns(x, n, n, d, p, j0, j1, res, n);
      kitchen::rff_nonlinearity(res, n, n, m, j0, j1, offset, kind, level);
    });
    return;
  }
  kitchen::gemm_packed_rhs rhs(d, m, level);
  kitchen_glue::pack_over_threads(rhs, p, d, level, n_threads);
  const double unit_cost = kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                           kitchen::gram_strip_width(level) * (2.0 * d + 30.0);
  const bool done = kitchen_glue::packed_product_over_threads(
      x, n, d, rhs, m, level, res, n, unit_cost, n_threads, [&](const kitchen::gemm_unit& u) {
        kitchen::rff_nonlinearity(res + u.row_begin, u.row_end - u.row_begin, n, m, u.col_begin,
                                  u.col_end, offset, kind, level);
      });
  if (!done) Rcpp::stop("Not enough memory for the feature products.");
}

}  // namespace

// The features of a n x d dgCMatrix (its slots) into res (n x width).
void kitchen_glue::rff_sparse_fill(const int* col_ptr, const int* row_idx, const double* val,
                                   std::size_t n, std::size_t d, const double* p, std::size_t m,
                                   const double* o, kitchen::rff_type kind, double* res,
                                   int n_threads, kitchen::simd_level level) {
  const double nnz = col_ptr[d];
  kitchen_glue::parallel_for_chunks(m, nnz + 30.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::rff_sparse_columns(col_ptr, row_idx, val, n, d, p, m, o, kind, begin, end, res, level);
  });
}

// The features of the n dense rows of x (column stride n) into res (n x
// width, column stride n): on kitchen's SIMD kernels unless use_blas or
// level is scalar; on R's BLAS when use_blas and n >= 256; else Eigen.
// Shared by rff_features_cpp() and the fit's block loop (fit_blocks.cpp).
void kitchen_glue::rff_dense_fill(const double* xd, std::size_t n, std::size_t d, const double* p,
                                  std::size_t m, const double* o, kitchen::rff_type kind,
                                  double* res, bool use_blas, int n_threads,
                                  kitchen::simd_level level, const double* transposed) {
  if (!use_blas && level != kitchen::simd_level::scalar) {
    rff_dense_packed(xd, n, d, p, m, o, kind, res, n_threads, level, transposed);
    return;
  }
  // A BLAS call (and waking its threads) costs more than it saves for a
  // few rows: those go to the Eigen path.
  if (use_blas && n >= 256) {
    const std::size_t chunk_rows = blas_chunk_rows(d, m);
    for (std::size_t r0 = 0; r0 < n; r0 += chunk_rows) {
      const std::size_t rows = std::min(chunk_rows, n - r0);
      kitchen_glue::blas_gemm(static_cast<int>(rows), static_cast<int>(m), static_cast<int>(d),
                              xd + r0, static_cast<int>(n), p, static_cast<int>(d), res + r0,
                              static_cast<int>(n));
      kitchen_glue::parallel_for_chunks(m, 30.0 * rows, n_threads,
                                        [&](std::size_t begin, std::size_t end) {
        kitchen::rff_nonlinearity(res + r0, rows, n, m, begin, end, o, kind, level);
      });
      Rcpp::checkUserInterrupt();
    }
    return;
  }
  const std::size_t n_blocks = (n + rff_block_rows - 1) / rff_block_rows;
  const double block_cost = rff_block_rows * (2.0 * d * m + 30.0 * m);
  kitchen_glue::parallel_for_chunks(n_blocks, block_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const std::size_t r0 = b * rff_block_rows;
      const std::size_t rows = std::min(rff_block_rows, n - r0);
      kitchen::rff_dense_block(xd + r0, rows, n, d, p, m, o, kind, res + r0, n, level);
    }
  });
}

// The view of an rff map's numbers, checked: what is wrong with them (cli
// markup naming the field), or nullptr. type: 0 cos_sin, 1 cos_phase.
// Sizes are checked here, so that a map R did not check cannot make us
// read out of bounds.
const char* kitchen_glue::rff_view_of(SEXP projection, SEXP center, SEXP phase, int type,
                                      kitchen_glue::rff_view& view, bool cached) {
  if (TYPEOF(projection) != REALSXP || !Rf_isMatrix(projection)) {
    return "{.field projection} must be a double matrix.";
  }
  const std::size_t d = Rf_nrows(projection), m = Rf_ncols(projection);
  if (!kitchen_glue::is_doubles(center, d)) {
    return "{.field center} must hold one double per row of {.field projection}.";
  }
  if (type != 0 && type != 1) return "{.field type} must be {.val cos_sin} or {.val cos_phase}.";
  view.kind = static_cast<kitchen::rff_type>(type);
  const bool cos_phase = view.kind == kitchen::rff_type::cos_phase;
  if (cos_phase && !kitchen_glue::is_doubles(phase, m)) {
    return "{.field phases} must hold one double per column of {.field projection}.";
  }
  view.d = d;
  view.m = m;
  view.projection = REAL(projection);
  if (cached) {
    view.derived = kitchen_glue::cached_rff_derived(projection, center,
                                                    cos_phase ? phase : R_NilValue);
    if (view.derived) {  // its offsets are all finite
      view.offset = view.derived->offset;
      view.transposed = view.derived->transposed.data();
      return nullptr;
    }
  }
  view.offset.resize(m);
  kitchen::rff_offset(view.projection, d, m, REAL(center), cos_phase ? REAL(phase) : nullptr,
                      view.offset.data());
  // Each offset sums terms from a whole column of the projection, the
  // centre and the phase: all of them are finite only if every offset is.
  for (std::size_t k = 0; k < m; ++k) {
    if (!std::isfinite(view.offset[k])) {
      return "{.field projection}, {.field center} and {.field phases} must be finite.";
    }
  }
  return nullptr;
}

// The view of an rff() object (a named list), checked as rff_view_of().
const char* kitchen_glue::read_rff_map(SEXP list, kitchen_glue::rff_view& view, bool cached) {
  if (TYPEOF(list) != VECSXP) return "the map must be a list.";
  SEXP type = kitchen_glue::map_field(list, "type");
  int code = -1;
  if (TYPEOF(type) == STRSXP && XLENGTH(type) == 1) {
    const char* name = CHAR(STRING_ELT(type, 0));
    code = std::strcmp(name, "cos_sin") == 0 ? 0 : std::strcmp(name, "cos_phase") == 0 ? 1 : -1;
  }
  return rff_view_of(kitchen_glue::map_field(list, "projection"),
                     kitchen_glue::map_field(list, "center"),
                     kitchen_glue::map_field(list, "phases"), code, view, cached);
}

namespace {

// Features of x (dense double matrix or dgCMatrix, n x d) for a checked
// view, in a new matrix; or a string saying what is wrong with x's shape.
SEXP rff_features_of(SEXP x, const kitchen_glue::rff_view& view, bool use_blas, int n_threads,
                     SEXP simd) {
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  const std::size_t d = view.d, m = view.m;
  const kitchen::rff_type kind = view.kind;
  if (Rf_isS4(x) && kitchen_glue::dgc_problem(x)) {
    return Rf_mkString(kitchen_glue::malformed_data_message);
  }
  const std::size_t x_cols = Rf_isS4(x) ? INTEGER(R_do_slot(x, Rf_install("Dim")))[1]
                                        : (Rf_isMatrix(x) ? Rf_ncols(x) : 0);
  if (x_cols != d || (!Rf_isS4(x) && TYPEOF(x) != REALSXP)) {
    return Rf_mkString("{.field projection} must have one row per column of the data.");
  }
  const double* p = view.projection;
  const double* o = view.offset.data();

  if (Rf_isS4(x)) {  // dgCMatrix
    SEXP dim = R_do_slot(x, Rf_install("Dim"));
    const std::size_t n = INTEGER(dim)[0];
    const int* col_ptr = INTEGER(R_do_slot(x, Rf_install("p")));
    const int* row_idx = INTEGER(R_do_slot(x, Rf_install("i")));
    const double* val = REAL(R_do_slot(x, Rf_install("x")));
    Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, kitchen::rff_n_features(kind, m)));
    kitchen_glue::rff_sparse_fill(col_ptr, row_idx, val, n, d, p, m, o, kind, REAL(out), n_threads,
                                  level);
    return out;
  }

  const std::size_t n = Rf_nrows(x);
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, kitchen::rff_n_features(kind, m)));
  kitchen_glue::rff_dense_fill(REAL(x), n, d, p, m, o, kind, REAL(out), use_blas, n_threads, level,
                               view.transposed);
  return out;
}

}  // namespace

// Why an rff() object cannot be used, as a string for R to report, or NULL.
// [[Rcpp::export(rng = false)]]
SEXP rff_map_problem_cpp(SEXP map) {
  kitchen_glue::rff_view view;
  const char* problem = kitchen_glue::read_rff_map(map, view);
  return problem ? Rf_mkString(problem) : R_NilValue;
}

// x: dense double matrix or dgCMatrix (n x d); map: the rff() object.
// Returns the n x n_features feature matrix, or a string saying what is
// wrong with the map, for R to report. With use_blas, dense products go to
// R's BLAS (called from this thread, which may use its own threads) and only
// the cosines are spread over ours; otherwise to kitchen's SIMD kernels when
// `simd` allows AVX2 or AVX-512, else to Eigen.
// [[Rcpp::export(rng = false)]]
SEXP rff_map_features_cpp(SEXP x, SEXP map, bool use_blas, int n_threads, SEXP simd) {
  kitchen_glue::rff_view view;
  const char* problem = kitchen_glue::read_rff_map(map, view, true);
  if (problem) return Rf_mkString(problem);
  return rff_features_of(x, view, use_blas, n_threads, simd);
}

// The features of dense rows x written into `into`, a double matrix of
// nrow(x) x n_features that predict_rows() makes once and reuses for every
// block: a fresh 16 MB matrix per block meant fresh pages, whose first
// touch cost more than the features (R frees the old ones only at its next
// garbage collection). Same numbers as rff_map_features_cpp(). Returns
// NULL, or what is wrong with the map or x (x was checked for the map).
// [[Rcpp::export(rng = false)]]
SEXP rff_features_into_cpp(SEXP x, SEXP map, bool use_blas, int n_threads, SEXP simd, SEXP into) {
  kitchen_glue::rff_view view;
  const char* problem = kitchen_glue::read_rff_map(map, view, true);
  if (problem) return Rf_mkString(problem);
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || static_cast<std::size_t>(Rf_ncols(x)) != view.d) {
    return Rf_mkString("{.field projection} must have one row per column of the data.");
  }
  const std::size_t n = Rf_nrows(x);
  kitchen_glue::check_result_buffer(into, "into", {x}, n, kitchen::rff_n_features(view.kind, view.m));
  kitchen_glue::rff_dense_fill(REAL(x), n, view.d, view.projection, view.m, view.offset.data(),
                               view.kind, REAL(into), use_blas, n_threads,
                               kitchen_glue::simd_from_name(simd), view.transposed);
  return R_NilValue;
}

// The same for a projection given as is (ARD's search, R/ard.R): projection
// d x m, center d, phase m or NULL, type "cos_sin" or "cos_phase".
// [[Rcpp::export(rng = false)]]
SEXP rff_features_cpp(SEXP x, SEXP projection, SEXP center, SEXP phase, std::string type,
                      bool use_blas, int n_threads, SEXP simd) {
  kitchen_glue::rff_view view;
  const int code = type == "cos_sin" ? 0 : type == "cos_phase" ? 1 : -1;
  const char* problem = kitchen_glue::rff_view_of(projection, center, phase, code, view);
  if (problem) return Rf_mkString(problem);
  return rff_features_of(x, view, use_blas, n_threads, simd);
}
