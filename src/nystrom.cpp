// Glue for predict() on Nystroem maps: R checks the map and prepares the
// scaled centers; here the rows are taken block by block, their kernel
// values with the centers computed in tiles over threads (kernel_matrix.hpp),
// then multiplied by K_CC^(-1/2) on kitchen's SIMD products (or Eigen).
#include <Rcpp.h>

#include <algorithm>
#include <memory>
#include <cstddef>
#include <string>
#include <vector>

#include "kitchen/gemm_simd.hpp"
#include "kitchen/nystrom.hpp"
#include "packed_product_threads.h"
#include "parallel_chunks.h"
#include "result_matrix.h"
#include "simd_name.h"

// x: n x d dense doubles; center, divisor: d; centers: M x d (rescaled and
// divided by the bandwidth); normalization: M x M; kind: a name known to
// kitchen::kernel_kind_from_name() other than "distance". Returns the n x M
// features, or a string saying what is wrong with the map, for R to report.
// [[Rcpp::export(rng = false)]]
SEXP nystrom_features_cpp(Rcpp::NumericMatrix x, Rcpp::NumericVector center,
                          Rcpp::NumericVector divisor, Rcpp::NumericMatrix centers,
                          Rcpp::NumericMatrix normalization, std::string kind, int n_threads,
                          SEXP simd) {
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  kitchen::kernel_kind kernel;
  if (!kitchen::kernel_kind_from_name(kind, kernel) || kernel == kitchen::kernel_kind::distance) {
    return Rf_mkString("{.field kernel} must be a kernel with a closed form here.");
  }
  const std::size_t n = x.nrow(), d = x.ncol(), m = centers.nrow();
  if (static_cast<std::size_t>(centers.ncol()) != d || static_cast<std::size_t>(center.size()) != d ||
      static_cast<std::size_t>(divisor.size()) != d) {
    return Rf_mkString("{.field centers} must have one column per column of the data.");
  }
  if (static_cast<std::size_t>(normalization.nrow()) != m ||
      static_cast<std::size_t>(normalization.ncol()) != m) {
    return Rf_mkString("{.field normalization} must be a square matrix with one row per center.");
  }
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, m));
  double* res = REAL(out);
  if (n == 0 || m == 0) return out;

  const std::size_t block = std::min(n, kitchen::nystrom_block_rows);
  std::vector<double> scaled(block * d), kc(block * m);
  const bool packed = level != kitchen::simd_level::scalar;
  // Packed once for every block; the constructor allocates, outside workers.
  std::unique_ptr<kitchen::gemm_packed_rhs> rhs;
  if (packed) {
    rhs.reset(new kitchen::gemm_packed_rhs(m, m, level));
    const double strip_cost = 2.0 * m * kitchen::gram_strip_width(level);
    kitchen_glue::parallel_for_chunks(rhs->n_strips(), strip_cost, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      rhs->pack(normalization.begin(), begin, end);
    });
  }
  const kitchen::matrix_view cv = kitchen::column_major(centers.begin(), m, d);
  for (std::size_t r0 = 0; r0 < n; r0 += block) {
    const std::size_t rows = std::min(block, n - r0);
    kitchen::nystrom_rescale_rows(x.begin(), n, r0, rows, d, center.begin(), divisor.begin(),
                                  scaled.data());
    const kitchen::matrix_view xv = kitchen::column_major(scaled.data(), rows, d);
    kitchen_glue::parallel_for_chunks(kitchen::kernel_matrix_tiles(rows, m),
                                      kitchen::kernel_tile_elements(rows, m) * (3.0 * d + 20.0),
                                      n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t tile = begin; tile < end; ++tile) {
        kitchen::kernel_matrix_tile(kernel, 1.0, xv, cv, tile, kc.data());
      }
    });
    if (packed) {
      const double unit_cost = kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                               kitchen::gram_strip_width(level) * 2.0 * m;
      if (!kitchen_glue::packed_product_over_threads(kc.data(), rows, m, *rhs, m, level, res + r0,
                                                     n, unit_cost, n_threads,
                                                     [](const kitchen::gemm_unit&) {})) {
        Rcpp::stop("Not enough memory for the feature products.");
      }
    } else {
      const std::size_t group = 64;
      kitchen_glue::parallel_for_chunks((m + group - 1) / group, 2.0 * rows * m * group, n_threads,
                                        [&](std::size_t begin, std::size_t end) {
        kitchen::nystrom_product_columns(kc.data(), rows, m, normalization.begin(), begin * group,
                                         std::min(m, end * group), res + r0, n);
      });
    }
    Rcpp::checkUserInterrupt();
  }
  return out;
}
