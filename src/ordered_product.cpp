// a %*% b summed in the reference BLAS's order (ordered_product.hpp) over
// threads: predict()'s scores when R's BLAS is the reference one
// (R/krr_predict.R), the same bits as %*% there. NULL where %*% would not
// call the BLAS's dgemm: a value of a or b that is not finite (R then sums
// in long double) or an extent of zero.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

#include "kitchen/finite.hpp"
#include "kitchen/ordered_product.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"
#include "simd_name.h"

// [[Rcpp::export(rng = false)]]
SEXP ordered_product_cpp(Rcpp::NumericMatrix a, Rcpp::NumericMatrix b, int n_threads, SEXP simd) {
  const std::size_t rows = a.nrow(), inner = a.ncol(), cols = b.ncol();
  if (static_cast<std::size_t>(b.nrow()) != inner) {
    Rcpp::stop("a must have as many columns as b has rows.");
  }
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (rows == 0 || inner == 0 || cols == 0 || !kitchen::all_finite(b.begin(), inner * cols)) {
    return R_NilValue;
  }
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(rows, cols));
  const std::size_t segments = (rows + kitchen::ordered_segment_rows - 1) / kitchen::ordered_segment_rows;
  std::atomic<bool> finite(true);
  const double* pa = a.begin();
  const double* pb = b.begin();
  double* po = REAL(out);
  kitchen_glue::parallel_for_chunks(segments, 2.0 * kitchen::ordered_segment_rows * inner * cols,
                                    n_threads, [&](std::size_t begin, std::size_t end) {
    std::vector<double> pack;
    const std::size_t r0 = begin * kitchen::ordered_segment_rows;
    const std::size_t r1 = std::min(rows, end * kitchen::ordered_segment_rows);
    if (!kitchen::ordered_product(pa, rows, inner, pb, inner, cols, r0, r1, po, rows, level, pack)) {
      finite = false;
    }
  });
  if (!finite) return R_NilValue;
  return out;
}
