// Glue for predict() on rff maps: R checks and prepares the numbers; here we
// allocate the result and spread the rows (dense) or frequencies (sparse)
// over threads.
#include "blas_gemm.h"
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <vector>

#include "kitchen/gemm_simd.hpp"
#include "kitchen/rff.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"
#include "sparse_input.h"

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
                      double* res, int n_threads, kitchen::simd_level level) {
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
  const double strip_cost = 2.0 * d * kitchen::gram_strip_width(level);
  kitchen_glue::parallel_for_chunks(rhs.n_strips(), strip_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    rhs.pack(p, begin, end);
  });
  const double unit_cost = kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                           kitchen::gram_strip_width(level) * (2.0 * d + 30.0);
  std::atomic<bool> failed(false);
  kitchen_glue::parallel_for_chunks(kitchen::gemm_n_units(n, rhs), unit_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    std::vector<double> lhs;
    try {
      lhs.resize(kitchen::gemm_lhs_size(level));
    } catch (...) {
      failed.store(true);
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      const kitchen::gemm_unit u = kitchen::gemm_unit_at(i, n, m, rhs, level);
      kitchen::gemm_packed_product(x, n, d, rhs, m, u, level, lhs.data(), res, n);
      kitchen::rff_nonlinearity(res + u.row_begin, u.row_end - u.row_begin, n, m, u.col_begin,
                                u.col_end, offset, kind, level);
    }
  });
  if (failed.load()) Rcpp::stop("Not enough memory for the feature products.");
}

}  // namespace

// x: dense double matrix or dgCMatrix (n x d); projection: d x m; center: d;
// phase: m or NULL. Returns the n x n_features feature matrix, or a string
// saying what is wrong with the map, for R to report. With
// use_blas, dense products go to R's BLAS (called from this thread, which
// may use its own threads) and only the cosines are spread over ours;
// otherwise to kitchen's SIMD kernels when `simd` allows AVX2 or AVX-512,
// else to Eigen.
// [[Rcpp::export(rng = false)]]
SEXP rff_features_cpp(SEXP x, Rcpp::NumericMatrix projection, Rcpp::NumericVector center,
                      SEXP phase, int type, bool use_blas, int n_threads, int simd) {
  const kitchen::simd_level level =
      kitchen::resolve_simd(static_cast<kitchen::simd_level>(simd));
  const std::size_t d = projection.nrow(), m = projection.ncol();
  // Sizes are re-checked here, so that a map R did not check cannot make
  // us read out of bounds.
  if (static_cast<std::size_t>(center.size()) != d) {
    return Rf_mkString("{.field center} must hold one double per row of {.field projection}.");
  }
  if (type != 0 && type != 1) return Rf_mkString("{.field type} must be {.val cos_sin} or {.val cos_phase}.");
  const kitchen::rff_type kind = static_cast<kitchen::rff_type>(type);
  if (kind == kitchen::rff_type::cos_phase &&
      (TYPEOF(phase) != REALSXP || static_cast<std::size_t>(XLENGTH(phase)) != m)) {
    return Rf_mkString("{.field phases} must hold one double per column of {.field projection}.");
  }
  if (Rf_isS4(x) && kitchen_glue::dgc_problem(x)) {
    return Rf_mkString(kitchen_glue::malformed_data_message);
  }
  const std::size_t x_cols = Rf_isS4(x) ? INTEGER(R_do_slot(x, Rf_install("Dim")))[1]
                                        : (Rf_isMatrix(x) ? Rf_ncols(x) : 0);
  if (x_cols != d || (!Rf_isS4(x) && TYPEOF(x) != REALSXP)) {
    return Rf_mkString("{.field projection} must have one row per column of the data.");
  }
  std::vector<double> offset(m);
  kitchen::rff_offset(projection.begin(), d, m, center.begin(),
                      kind == kitchen::rff_type::cos_phase ? REAL(phase) : nullptr, offset.data());
  // Each offset sums terms from a whole column of the projection, the
  // centre and the phase: all of them are finite only if every offset is.
  for (std::size_t k = 0; k < m; ++k) {
    if (!std::isfinite(offset[k])) {
      return Rf_mkString("{.field projection}, {.field center} and {.field phases} must be finite.");
    }
  }
  const double* p = projection.begin();
  const double* o = offset.data();

  if (Rf_isS4(x)) {  // dgCMatrix
    SEXP dim = R_do_slot(x, Rf_install("Dim"));
    const std::size_t n = INTEGER(dim)[0];
    const int* col_ptr = INTEGER(R_do_slot(x, Rf_install("p")));
    const int* row_idx = INTEGER(R_do_slot(x, Rf_install("i")));
    const double* val = REAL(R_do_slot(x, Rf_install("x")));
    Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, kitchen::rff_n_features(kind, m)));
    double* res = REAL(out);
    const double nnz = col_ptr[d];
    kitchen_glue::parallel_for_chunks(m, nnz + 30.0 * n, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      kitchen::rff_sparse_columns(col_ptr, row_idx, val, n, d, p, m, o, kind, begin, end, res, level);
    });
    return out;
  }

  const std::size_t n = Rf_nrows(x);
  const double* xd = REAL(x);
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, kitchen::rff_n_features(kind, m)));
  double* res = REAL(out);
  if (!use_blas && level != kitchen::simd_level::scalar) {
    rff_dense_packed(xd, n, d, p, m, o, kind, res, n_threads, level);
    return out;
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
    return out;
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
  return out;
}
