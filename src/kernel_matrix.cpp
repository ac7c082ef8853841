// Glue for kernel_matrix(): R checks the arguments and the size of the
// result; here we allocate it and spread its tiles over threads.
#include <Rcpp.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <string>

#include "result_matrix.h"
#include "kitchen/kernel_matrix.hpp"
#include "parallel_chunks.h"

// x (n x d) and y (m x d): double matrices with the same number of columns.
// With `row_major`, x and y hold their transposes (d x n and d x m), which
// reaches the core's row-major path (used by the tests). `kind` is a name
// known to kitchen::kernel_kind_from_name(). Returns the n x m matrix K.
// [[Rcpp::export(rng = false)]]
SEXP kernel_matrix_cpp(Rcpp::NumericMatrix x, Rcpp::NumericMatrix y, bool row_major,
                       std::string kind, double sigma, int n_threads) {
  kitchen::kernel_kind kernel;
  if (!kitchen::kernel_kind_from_name(kind, kernel)) Rcpp::stop("Unknown kernel kind '%s'.", kind);
  const std::size_t n = row_major ? x.ncol() : x.nrow();
  const std::size_t m = row_major ? y.ncol() : y.nrow();
  const std::size_t d = row_major ? x.nrow() : x.ncol();
  if (d != static_cast<std::size_t>(row_major ? y.nrow() : y.ncol())) {
    Rcpp::stop("x and y must have the same number of columns.");
  }
  if (static_cast<double>(n) * static_cast<double>(m) > INT_MAX) {
    Rcpp::stop("The kernel matrix would have more than 2^31 - 1 entries.");
  }
  const kitchen::matrix_view xv = row_major ? kitchen::row_major(x.begin(), n, d)
                                            : kitchen::column_major(x.begin(), n, d);
  const kitchen::matrix_view yv = row_major ? kitchen::row_major(y.begin(), m, d)
                                            : kitchen::column_major(y.begin(), m, d);

  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(n, m));
  double* res = REAL(out);
  // A tile costs about one operation per element and coordinate, plus the
  // final exp() per element.
  const double tile_cost =
      kitchen::kernel_tile_elements(n, m) * (static_cast<double>(d) + 20.0);
  kitchen_glue::parallel_for_chunks(kitchen::kernel_matrix_tiles(n, m), tile_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t tile = begin; tile < end; ++tile) {
      kitchen::kernel_matrix_tile(kernel, sigma, xv, yv, tile, res);
    }
  });
  return out;
}
