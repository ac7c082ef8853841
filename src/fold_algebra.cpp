// Glue for the D x D arithmetic of cross-validation (fold_algebra.hpp) and
// the blocked Cholesky solve of a fixed lambda (blocked_cholesky.hpp): fresh
// results filled by units over threads, with interrupt checks between
// chunks, where R's arithmetic and chol() would hold the main thread for
// seconds to minutes on a 1 GB matrix.
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "cholesky_threads.h"
#include "kitchen/blocked_cholesky.hpp"
#include "kitchen/fold_algebra.hpp"
#include "kitchen/quadratic_forms.hpp"
#include "parallel_chunks.h"
#include "result_matrix.h"
#include "simd_name.h"

SEXP gram_copy_interruptible(SEXP gram, std::size_t dim, int n_threads);  // gram_finish.cpp

// a + sign * b for two matrices of the same shape (a new matrix).
// [[Rcpp::export(rng = false)]]
SEXP gram_combine_cpp(Rcpp::NumericMatrix a, Rcpp::NumericMatrix b, double sign, int n_threads) {
  if (a.nrow() != b.nrow() || a.ncol() != b.ncol()) Rcpp::stop("a and b must have the same shape.");
  const std::size_t rows = a.nrow(), cols = a.ncol();
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(rows, cols));
  const double* pa = a.begin();
  const double* pb = b.begin();
  double* res = REAL(out);
  kitchen_glue::parallel_for_chunks(kitchen::fold_algebra_units(cols, kitchen::fold_algebra_block),
                                    3.0 * rows * kitchen::fold_algebra_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) {
      kitchen::gram_combine_columns(pa, pb, sign, rows, cols, u, res);
    }
  });
  return out;
}

// a += b for two matrices of the same shape, a a fit's own running sums
// (nothing else holds it): the same bits as gram_combine_cpp(a, b, 1), with
// no third matrix to touch for the first time.
// [[Rcpp::export(rng = false)]]
SEXP gram_add_in_place_cpp(SEXP a, SEXP b, int n_threads) {
  // a as it is (Rcpp would write into a converted copy of anything else)
  if (TYPEOF(a) != REALSXP || TYPEOF(b) != REALSXP || !Rf_isMatrix(a) || !Rf_isMatrix(b) ||
      Rf_nrows(a) != Rf_nrows(b) || Rf_ncols(a) != Rf_ncols(b)) {
    Rcpp::stop("a and b must be double matrices of the same shape.");
  }
  const std::size_t rows = Rf_nrows(a), cols = Rf_ncols(a);
  double* pa = REAL(a);
  const double* pb = REAL(b);
  kitchen_glue::parallel_for_chunks(kitchen::fold_algebra_units(cols, kitchen::fold_algebra_block),
                                    2.0 * rows * kitchen::fold_algebra_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) {
      kitchen::gram_combine_columns(pa, pb, 1.0, rows, cols, u, pa);
    }
  });
  return R_NilValue;
}

// The sum of a list of matrices of one shape (a new matrix): the folds'
// Gram matrices summed in one pass, without the intermediate sums of R's
// Reduce() (each a fresh 1.15 GB matrix at D = 12,000).
// [[Rcpp::export(rng = false)]]
SEXP gram_sum_cpp(Rcpp::List grams, int n_threads) {
  const std::size_t count = grams.size();
  if (count == 0) Rcpp::stop("grams must not be empty.");
  Rcpp::NumericMatrix first = grams[0];
  const std::size_t rows = first.nrow(), cols = first.ncol();
  std::vector<const double*> parts(count);
  for (std::size_t k = 0; k < count; ++k) {
    SEXP g = grams[k];
    if (!Rf_isReal(g) || !Rf_isMatrix(g) || static_cast<std::size_t>(Rf_nrows(g)) != rows ||
        static_cast<std::size_t>(Rf_ncols(g)) != cols) {
      Rcpp::stop("grams must be numeric matrices of one shape.");
    }
    parts[k] = REAL(g);
  }
  Rcpp::Shield<SEXP> out(kitchen_glue::alloc_result_matrix(rows, cols));
  double* res = REAL(out);
  kitchen_glue::parallel_for_chunks(kitchen::fold_algebra_units(cols, kitchen::fold_algebra_block),
                                    (count + 1.0) * rows * kitchen::fold_algebra_block, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) {
      kitchen::gram_sum_columns(parts.data(), count, rows, cols, u, res);
    }
  });
  return out;
}

// colSums(w * (gram %*% w)) for a square gram and w with as many rows: the
// quadratic forms w_c' G w_c, one per column of w.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector gram_quadratic_forms_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix w,
                                             int n_threads) {
  const std::size_t dim = gram.nrow(), m = w.ncol();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(w.nrow()) != dim) {
    Rcpp::stop("gram must be square, with as many rows as w.");
  }
  Rcpp::NumericMatrix product(dim, m);  // zeros, as dgemm's beta = 0
  const double* g = gram.begin();
  const double* pw = w.begin();
  double* out = product.begin();
  const std::size_t units = kitchen::fold_algebra_units(m, kitchen::gram_times_block);
  const std::size_t step = 256;  // columns of gram between interrupt checks
  for (std::size_t l0 = 0; l0 < dim; l0 += step) {
    const std::size_t l1 = std::min(dim, l0 + step);
    kitchen_glue::parallel_for_chunks(units, 2.0 * dim * (l1 - l0) * kitchen::gram_times_block,
                                      n_threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) {
        kitchen::gram_times_columns(g, pw, dim, m, l0, l1, u, out);
      }
    });
    Rcpp::checkUserInterrupt();
  }
  Rcpp::NumericVector sums(m);
  kitchen::weighted_column_sums(pw, out, dim, m, sums.begin());
  return sums;
}

#if KITCHEN_X86_SIMD
namespace {

// product = G W on Kernel's micro-kernels (quadratic_forms.hpp), by groups
// of columns: a unit of rows over all m columns was up to 11.5 GFLOP at
// dim 6000 and m 5000, so an interrupt waited up to 2.6 s (load 7.5); a
// group keeps a unit near 1 GFLOP. Results do not depend on the groups.
template <class Kernel>
void packed_product(const double* g, const double* w, std::size_t dim, std::size_t m,
                    int n_threads, double* product) {
  kitchen::symmetric_product<Kernel> sp(dim, m);
  kitchen_glue::parallel_for_chunks(sp.n_strips(), 1.0 * dim * Kernel::mr, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    sp.pack_w(w, begin, end);
  });
  const double strip_cost = 2.0 * dim * Kernel::mr * sp.unit_rows;
  const std::size_t strips = sp.n_strips();
  const std::size_t n_groups =
      std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(strips * strip_cost / 1e9)));
  const std::size_t group = (strips + n_groups - 1) / n_groups;
  for (std::size_t s0 = 0; s0 < strips; s0 += group) {
    const std::size_t s1 = std::min(strips, s0 + group);
    kitchen_glue::parallel_for_chunks(sp.n_units(), (s1 - s0) * strip_cost, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) sp.multiply_unit(g, u, product, s0, s1);
    });
    Rcpp::checkUserInterrupt();
  }
}

}  // namespace
#endif

// The same quadratic forms for a K-fold CV's scores (R/krr_cv.R), with
// G W as a packed product on the AVX-512 / AVX2 kernels when `simd` allows
// them (rounding differently from gram_quadratic_forms_cpp()), else as
// gram_quadratic_forms_cpp(). gram must be symmetric (only G' W is formed).
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector fold_quadratic_forms_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix w,
                                             int n_threads, SEXP simd) {
  const std::size_t dim = gram.nrow(), m = w.ncol();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(w.nrow()) != dim) {
    Rcpp::stop("gram must be square, with as many rows as w.");
  }
  const kitchen::simd_level level =
      kitchen_glue::simd_from_name(simd);
#if KITCHEN_X86_SIMD
  if (level != kitchen::simd_level::scalar && dim > 0 && m > 0) {
    std::vector<double> product(dim * m, 0.0);
    if (level == kitchen::simd_level::avx512) {
      packed_product<kitchen::detail::gram_avx512>(gram.begin(), w.begin(), dim, m, n_threads,
                                                   product.data());
    } else {
      packed_product<kitchen::detail::gram_avx2>(gram.begin(), w.begin(), dim, m, n_threads,
                                                 product.data());
    }
    Rcpp::NumericVector sums(m);
    kitchen::weighted_column_sums(w.begin(), product.data(), dim, m, sums.begin());
    return sums;
  }
#endif
  (void)level;
  return gram_quadratic_forms_cpp(gram, w, n_threads);
}

// Solves (gram + lambda I) x = rhs by a blocked Cholesky factorisation of a
// copy of gram. NULL when gram + lambda I is not positive definite to double
// precision (the caller names lambda).
// [[Rcpp::export(rng = false)]]
SEXP ridge_cholesky_solve_cpp(Rcpp::NumericMatrix gram, double lambda, Rcpp::NumericMatrix rhs,
                              int n_threads) {
  const std::size_t dim = gram.nrow(), m = rhs.ncol();
  if (gram.ncol() != gram.nrow() || static_cast<std::size_t>(rhs.nrow()) != dim) {
    Rcpp::stop("gram must be square, with as many rows as rhs.");
  }
  Rcpp::Shield<SEXP> work(gram_copy_interruptible(gram, dim, n_threads));
  double* a = REAL(work);
  for (std::size_t j = 0; j < dim; ++j) a[j + j * dim] += lambda;
  if (!kitchen_glue::cholesky_in_place(a, dim, n_threads)) return R_NilValue;
  Rcpp::NumericMatrix x = Rcpp::clone(rhs);
  kitchen::cholesky_solve(a, dim, x.begin(), m);
  return x;
}
