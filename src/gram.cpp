// Glue for the Gram accumulation of krr_fit(): G + Z'Z for a block of
// feature rows, on panels of columns spread over threads (AVX-512 / AVX2
// micro-kernels on packed blocks of rows, or Eigen), or on R's BLAS (dsyrk)
// when it is an optimised one.
#include "blas_gemm.h"
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>

#include "kitchen/gram.hpp"
#include "gram_update.h"
#include "parallel_chunks.h"
#include "simd_name.h"

SEXP gram_copy_interruptible(SEXP gram, std::size_t dim, int n_threads);  // gram_finish.cpp

namespace {

// Eigen on all rows, panel by panel. Eigen may allocate (and throw) inside
// a worker: that is caught there and reported here.
void gram_update_eigen(const double* z, std::size_t rows, std::size_t dim, double* g,
                       int n_threads) {
  const double panel_cost = static_cast<double>(rows) * dim * kitchen::gram_panel_width;
  std::atomic<bool> failed(false);
  kitchen_glue::parallel_for_chunks(kitchen::gram_n_panels(dim), panel_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    try {
      for (std::size_t p = begin; p < end; ++p) kitchen::gram_panel_update(z, rows, rows, dim, p, g);
    } catch (...) {
      failed.store(true);
    }
  });
  if (failed.load()) Rcpp::stop("Not enough memory for the Gram matrix products.");
}

// SIMD micro-kernels, block of rows by block of rows: the threads first pack
// the block (by strips), then share out the panels. A unit of work is the
// pair of panels p and n - 1 - p, so units cost the same (the panels of an
// upper triangle grow linearly). Nothing here allocates inside a worker.
void gram_update_packed(const double* z, std::size_t rows, std::size_t dim, double* g,
                        int n_threads, kitchen::simd_level level) {
  kitchen::gram_packed_block block(rows, dim, level);
  double* packed = block.data();
  const std::size_t n_strips = kitchen::gram_n_strips(dim, level);
  const std::size_t width = kitchen::gram_strip_width(level);
  const std::size_t n_panels = kitchen::gram_n_panels(dim);
  const std::size_t n_pairs = (n_panels + 1) / 2;
  for (std::size_t k0 = 0; k0 < rows; k0 += kitchen::gram_block_rows) {
    const std::size_t kc = std::min(kitchen::gram_block_rows, rows - k0);
    kitchen_glue::parallel_for_chunks(n_strips, 2.0 * kc * width, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      kitchen::gram_pack_strips(z, rows, k0, kc, dim, begin, end, level, packed);
    });
    const double pair_cost = static_cast<double>(kc) * (dim + kitchen::gram_panel_width) *
                             kitchen::gram_panel_width;
    kitchen_glue::parallel_for_chunks(n_pairs, pair_cost, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) {
        kitchen::gram_packed_panel_update(packed, kc, dim, u, g, level);
        if (n_panels - 1 - u != u) {
          kitchen::gram_packed_panel_update(packed, kc, dim, n_panels - 1 - u, g, level);
        }
      }
    });
    Rcpp::checkUserInterrupt();
  }
}

}  // namespace

// g (D x D, column stride dim) += the upper triangle of Z'Z for z (rows x
// dim, column stride rows), in place: on R's BLAS (dsyrk) when use_blas,
// else kitchen's SIMD kernels, or Eigen when level is scalar. The result
// does not depend on n_threads. Also the fit's block loop (fit_blocks.cpp).
void kitchen_glue::gram_update_in_place(const double* z, std::size_t rows, std::size_t dim,
                                        double* g, bool use_blas, int n_threads,
                                        kitchen::simd_level level) {
  if (rows == 0 || dim == 0) return;
  if (use_blas) {
    kitchen_glue::blas_syrk_upper(static_cast<int>(dim), static_cast<int>(rows), z,
                                  static_cast<int>(rows), g, static_cast<int>(dim));
  } else if (level == kitchen::simd_level::scalar) {
    gram_update_eigen(z, rows, dim, g, n_threads);
  } else {
    gram_update_packed(z, rows, dim, g, n_threads, level);
  }
}

// gram: D x D, of which only the upper triangle is read and updated (entries
// below the diagonal may change too); z: rows x D. Returns a new matrix: the
// argument is not modified. Call gram_symmetrize_cpp() once after the last
// block (gram_finish.cpp). simd caps the instruction set (by name: "scalar", "avx2",
// "avx512"; see resolve_simd() in R); the result does not depend on n_threads.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix gram_update_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix z,
                                    bool use_blas, int n_threads, SEXP simd) {
  const kitchen::simd_level level =
      kitchen_glue::simd_from_name(simd);
  if (gram.nrow() != gram.ncol()) Rcpp::stop("gram must be square.");
  Rcpp::NumericMatrix out(gram_copy_interruptible(gram, gram.nrow(), n_threads));
  kitchen_glue::gram_update_in_place(z.begin(), z.nrow(), z.ncol(), out.begin(), use_blas,
                                     n_threads, level);
  return out;
}
