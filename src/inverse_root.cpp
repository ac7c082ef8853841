// Glue for nystrom()'s K_CC^(-1/2) (kitchen/inverse_root.hpp): the kept
// eigenpairs of K (src/tridiagonal_eigen.h), then S S' (S = U_r
// diag(l^(-1/4))) on kitchen's SIMD products (Eigen without SIMD). Workers
// run pure C++ on buffers allocated beforehand; parallel_for_chunks checks
// for interrupts between chunks on the main thread.
#include "blas_gemm.h"  // first: sets up R's Fortran string-length arguments
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "kitchen/eigen.hpp"
#include "kitchen/gemm_simd.hpp"
#include "kitchen/inverse_root.hpp"
#include "packed_product_threads.h"
#include "parallel_chunks.h"
#include "simd_name.h"
#include "tridiagonal_eigen.h"

namespace {

// s s' (n x n) for s n x r (column-major), given st = s' (r x n); st is
// freed before the result is allocated (on the SIMD path once packed).
Rcpp::NumericMatrix outer_product(const double* s, std::vector<double>& st, std::size_t n,
                                  std::size_t r, kitchen::simd_level level, int n_threads) {
  std::atomic<bool> failed(false);
  if (level != kitchen::simd_level::scalar) {
    kitchen::gemm_packed_rhs rhs(r, n, level);
    kitchen_glue::pack_over_threads(rhs, st.data(), r, level, n_threads);
    std::vector<double>().swap(st);
    Rcpp::NumericMatrix out(n, n);
    double* res = out.begin();
    const double unit_cost = kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                             kitchen::gram_strip_width(level) * 2.0 * r;
    if (!kitchen_glue::packed_product_over_threads(s, n, r, rhs, n, level, res, n, unit_cost,
                                                   n_threads, [](const kitchen::gemm_unit&) {})) {
      Rcpp::stop("Not enough memory for the product S S'.");
    }
    return out;
  }
  std::vector<double>().swap(st);
  Rcpp::NumericMatrix out(n, n);
  double* res = out.begin();
  using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  const std::size_t group = 64;
  kitchen_glue::parallel_for_chunks((n + group - 1) / group, 2.0 * n * r * group, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    try {
      Eigen::Map<const matrix> sm(s, n, r);
      Eigen::Map<matrix> om(res, n, n);
      const std::size_t j0 = begin * group, j1 = std::min(n, end * group);
      om.middleCols(j0, j1 - j0).noalias() = sm * sm.middleRows(j0, j1 - j0).transpose();
    } catch (...) {
      failed.store(true);
    }
  });
  if (failed.load()) Rcpp::stop("Not enough memory for the product S S'.");
  return out;
}

}  // namespace

// k: a symmetric positive semi-definite n x n matrix (its upper triangle is
// read). Returns list(matrix = K^(+1/2), rank = r), kitchen/inverse_root.hpp.
// [[Rcpp::export(rng = false)]]
Rcpp::List inverse_square_root_cpp(Rcpp::NumericMatrix k, int n_threads, SEXP simd) {
  const std::size_t n = k.nrow();
  if (static_cast<std::size_t>(k.ncol()) != n) Rcpp::stop("k must be square.");
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  // The cutoff n eps max(l) of kitchen::inverse_root_cutoff().
  std::vector<double> w, z;
  const std::size_t r = kitchen_glue::kept_eigenpairs(
      k.begin(), n, kitchen::inverse_root_cutoff(n, 1.0), level, n_threads, w, z);
  // At most four n x n matrices are held at once (for r = n): k, the
  // reduction's copy and the eigenvectors; then k, the eigenvectors, their
  // transpose and its packed copy; then k, the eigenvectors, the packed copy
  // and the result.
  if (r == 0) {
    return Rcpp::List::create(Rcpp::Named("matrix") = Rcpp::NumericMatrix(n, n),
                              Rcpp::Named("rank") = 0);
  }
  std::vector<double> zt(r * n);
  const std::size_t group = kitchen::inverse_root_group;
  kitchen_glue::parallel_for_chunks((r + group - 1) / group, 3.0 * n * group, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t g = begin; g < end; ++g) {
      kitchen::inverse_root_scale(z.data(), n, w.data(), r, g * group,
                                  std::min(r, (g + 1) * group), zt.data());
    }
  });
  return Rcpp::List::create(Rcpp::Named("matrix") = outer_product(z.data(), zt, n, r, level, n_threads),
                            Rcpp::Named("rank") = static_cast<int>(r));
}
