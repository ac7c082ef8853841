// Glue for kernel logistic regression on features held in memory
// (kitchen/logistic_bound.hpp): the gradient pass and the L-BFGS loop on
// some rows of the n x D feature matrix, gathered once per call
// (R/krr_logistic.R, memory_logistic_source()).
#include <Rcpp.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <type_traits>
#include <vector>

#include "gram_update.h"
#include "kitchen/gram_simd.hpp"
#include "kitchen/huge_pages.hpp"
#include "kitchen/logistic_bound.hpp"
#include "centred_factor.h"
#include "parallel_chunks.h"
#include "simd_name.h"

namespace {

// The rows `rows` (1-based) of `features`, one per column of zt (D x n:
// kitchen/thin_products.hpp), in double or single precision (Z), with
// their class numbers (1-based in R, 0-based here) and weights.
template <typename Z>
struct logistic_rows {
  kitchen::thin_rows<Z> zt;
  std::vector<int> labels;
  std::vector<double> weights;
};

template <typename Z>
logistic_rows<Z> gather_rows(const Rcpp::NumericMatrix& features, const Rcpp::IntegerVector& rows,
                             const Rcpp::IntegerVector& labels, const Rcpp::NumericVector& weights,
                             int n_classes) {
  const std::size_t n = rows.size(), d = features.ncol(), total = features.nrow();
  if (static_cast<std::size_t>(labels.size()) != total ||
      static_cast<std::size_t>(weights.size()) != total) {
    Rcpp::stop("labels and weights must have one value per row of features.");
  }
  logistic_rows<Z> out{kitchen::thin_rows<Z>(d, n), std::vector<int>(n), std::vector<double>(n)};
  kitchen::advise_huge_pages(out.zt.data(), n * d * sizeof(Z));  // a fresh copy per solve
  for (std::size_t i = 0; i < n; ++i) {
    const int r = rows[i];
    if (r < 1 || static_cast<std::size_t>(r) > total) Rcpp::stop("rows must be row numbers of features.");
    const int label = labels[r - 1];
    if (label < 1 || label > n_classes) Rcpp::stop("labels must be class numbers.");
    out.labels[i] = label - 1;
    out.weights[i] = weights[r - 1];
  }
  // By blocks of rows, so that both the columns read and the rows written
  // stay in cache.
  const double* f = features.begin();
  Z* zt = out.zt.data();
  constexpr std::size_t block = 64;
  for (std::size_t i0 = 0; i0 < n; i0 += block) {
    const std::size_t i1 = std::min(n, i0 + block);
    for (std::size_t j = 0; j < d; ++j) {
      const double* column = f + j * total;
      for (std::size_t i = i0; i < i1; ++i) zt[i * d + j] = static_cast<Z>(column[rows[i] - 1]);
    }
  }
  return out;
}

kitchen::logistic_matrix as_eigen(const Rcpp::NumericMatrix& m) {
  return Eigen::Map<const kitchen::logistic_matrix>(m.begin(), m.nrow(), m.ncol());
}

Eigen::VectorXd as_eigen(const Rcpp::NumericVector& v) {
  return Eigen::Map<const Eigen::VectorXd>(v.begin(), v.size());
}

Rcpp::NumericMatrix as_r(const kitchen::logistic_matrix& m) {
  Rcpp::NumericMatrix out(m.rows(), m.cols());
  std::copy(m.data(), m.data() + m.size(), out.begin());
  return out;
}

Rcpp::NumericVector as_r(const Eigen::VectorXd& v) {
  return Rcpp::NumericVector(v.data(), v.data() + v.size());
}

// A pass's units over n_threads threads (parallel_chunks.h: the main
// thread checks for interrupts between chunks), each unit about
// 4 rows D K operations.
template <typename Z>
kitchen::logistic_runner logistic_threads(const kitchen::thin_rows<Z>& zt, std::size_t k,
                                          int n_threads) {
  const double unit_cost = 4.0 * kitchen::logistic_unit_rows(zt.cols()) * zt.rows() * k;
  return [unit_cost, n_threads](std::size_t n_units,
                                const std::function<void(std::size_t, std::size_t)>& body) {
    kitchen_glue::parallel_for_chunks(n_units, unit_cost, n_threads, body);
  };
}

}  // namespace

namespace {

template <typename Z>
Rcpp::List pass_on_rows(const Rcpp::NumericMatrix& features, const Rcpp::IntegerVector& rows,
                        const Rcpp::IntegerVector& labels, const Rcpp::NumericVector& weights,
                        const Rcpp::NumericMatrix& coefficients,
                        const Rcpp::NumericVector& intercept, int n_threads,
                        kitchen::simd_level level) {
  const logistic_rows<Z> part = gather_rows<Z>(features, rows, labels, weights, coefficients.ncol());
  const kitchen::logistic_pass_result pass = kitchen::logistic_pass(
      part.zt, part.labels, part.weights, as_eigen(coefficients), as_eigen(intercept),
      logistic_threads(part.zt, coefficients.ncol(), n_threads), level);
  return Rcpp::List::create(Rcpp::Named("log_loss") = pass.log_loss,
                            Rcpp::Named("correct") = pass.correct,
                            Rcpp::Named("zg") = as_r(pass.zg), Rcpp::Named("g0") = as_r(pass.g0));
}

}  // namespace

// One pass over the rows `rows` (1-based) of `features` (n x D) with class
// numbers `labels` and `weights` (one per row of features): log_loss,
// correct, zg (D x K) and g0 at (coefficients D x K, intercept K); on
// n_threads threads, the same result for any number; products and exp() on
// the kernels of `simd` ("scalar", "avx2" or "avx512"; see resolve_simd() in R).
// With `single_precision`, on the rows rounded to float (as CV's fold
// solves take them: logistic_bound_cpp()).
// [[Rcpp::export(rng = false)]]
Rcpp::List logistic_pass_cpp(Rcpp::NumericMatrix features, Rcpp::IntegerVector rows,
                             Rcpp::IntegerVector labels, Rcpp::NumericVector weights,
                             Rcpp::NumericMatrix coefficients, Rcpp::NumericVector intercept,
                             int n_threads, SEXP simd, bool single_precision = false) {
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (coefficients.nrow() != features.ncol() || intercept.size() != coefficients.ncol()) {
    Rcpp::stop("coefficients must be D x K and intercept of length K.");
  }
  if (single_precision) {
    return pass_on_rows<float>(features, rows, labels, weights, coefficients, intercept,
                               n_threads, level);
  }
  return pass_on_rows<double>(features, rows, labels, weights, coefficients, intercept, n_threads,
                              level);
}

// exp() of x (every element at most 0, or NaN) on the kernels of `simd`,
// as the pass's softmax takes it (kitchen/exp_nonpositive.hpp); for tests.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector exp_nonpositive_cpp(Rcpp::NumericVector x, SEXP simd) {
  Rcpp::NumericVector out = Rcpp::clone(x);
  kitchen::exp_nonpositive(out.begin(), static_cast<std::size_t>(out.size()),
                           kitchen_glue::simd_from_name(simd));
  return out;
}

namespace {

// A solve's preconditioner as kitchen::logistic_bound_inverse() takes it
// (the upper factor, zbar, scale): the bound's (bound_preconditioner()) or
// the curvature at a warm start's (curvature_at_start(), which also keeps
// its pass at the start in `pass`: the solver's first).
struct solve_preconditioner {
  kitchen::logistic_matrix factor;
  Eigen::VectorXd zbar;
  double scale = 0;
  kitchen::logistic_pass_result pass;
};

// The preconditioner of a warm start (R/krr_logistic.R,
// kept_features_solver()): [1 Z]'R[1 Z] + 2 lambda I on the coefficients,
// R the rows' weights times their curvature at the start
// (kitchen::logistic_pass()), from one pass, one weighted Z'Z on kitchen's
// Gram kernels and one factorisation. False when not positive definite.

template <typename Z>
bool curvature_at_start(const Rcpp::NumericMatrix& features, const Rcpp::IntegerVector& rows,
                        const logistic_rows<Z>& part, const kitchen::logistic_matrix& coefficients,
                        const Eigen::VectorXd& intercept, double lambda, int n_threads,
                        kitchen::simd_level level, bool use_blas, solve_preconditioner& out) {
  const std::size_t n = part.zt.cols(), d = part.zt.rows(), total = features.nrow();
  std::vector<double> r(n);
  out.pass = kitchen::logistic_pass(part.zt, part.labels, part.weights, coefficients, intercept,
                                    logistic_threads(part.zt, coefficients.cols(), n_threads),
                                    level, r.data());
  double scale = 0;
  for (double v : r) scale += v;
  if (!(scale > 0)) return false;
  // The rows times sqrt(r) for the Gram kernels (column-major), and the
  // weighted means (rows in order), read column by column from `features`
  // as R holds them, by blocks of the kernels' own rows: the same sums as
  // one call over all rows, in a buffer of a block instead of a weighted
  // copy of every row.
  std::vector<double> root(n);
  for (std::size_t i = 0; i < n; ++i) root[i] = std::sqrt(r[i]);
  const std::size_t block = std::min(n, kitchen::gram_block_rows);
  std::unique_ptr<double[]> weighted(new double[block * d]);
  Eigen::VectorXd zbar = Eigen::VectorXd::Zero(d);
  std::vector<double> gram(d * d, 0.0);
  for (std::size_t i0 = 0; i0 < n; i0 += block) {
    const std::size_t rows_here = std::min(block, n - i0);
    for (std::size_t j = 0; j < d; ++j) {
      const double* column = features.begin() + j * total;
      double* out_column = weighted.get() + j * rows_here;
      double sum = zbar[j];
      for (std::size_t i = i0; i < i0 + rows_here; ++i) {
        const double z = column[rows[i] - 1];
        out_column[i - i0] = root[i] * z;
        sum += r[i] * z;
      }
      zbar[j] = sum;
    }
    kitchen_glue::gram_update_in_place(weighted.get(), rows_here, d, gram.data(), use_blas,
                                       n_threads, level);
  }
  zbar /= scale;
  out.factor.resize(d, d);
  if (!kitchen_glue::logistic_factor(gram.data(), nullptr, true, zbar.data(), scale, 1.0, lambda, d,
                                     n_threads, level, out.factor.data())) {
    return false;
  }
  out.zbar = std::move(zbar);
  out.scale = scale;
  return true;
}

}  // namespace

namespace {

// The bound's preconditioner (R/krr_logistic.R, logistic_bound()) from
// `bound`: list(gram, fold_gram, zbar, n, curvature), the factor of
// curvature * ((gram - fold_gram) - n zbar zbar') + 2 lambda I made here in
// C++ memory, freed with the solve (in R, each of CV's solves left two
// D x D matrices for the collector). False when not positive definite.
bool bound_preconditioner(const Rcpp::List& bound, std::size_t d, double lambda, int n_threads,
                          kitchen::simd_level level, solve_preconditioner& out) {
  const Rcpp::NumericMatrix gram(bound["gram"]);
  const Rcpp::NumericVector zbar(bound["zbar"]);
  const double n = Rcpp::as<double>(bound["n"]), curvature = Rcpp::as<double>(bound["curvature"]);
  if (static_cast<std::size_t>(gram.nrow()) != d || static_cast<std::size_t>(gram.ncol()) != d ||
      static_cast<std::size_t>(zbar.size()) != d) {
    Rcpp::stop("bound: gram must be D x D and zbar of length D.");
  }
  if (!(n > 0) || !(curvature > 0)) Rcpp::stop("bound: n and curvature must be positive.");
  const double* minus =
      kitchen_glue::fold_gram_or_null(Rcpp::Nullable<Rcpp::NumericMatrix>(bound["fold_gram"]), d);
  out.factor.resize(d, d);
  if (!kitchen_glue::logistic_factor(gram.begin(), minus, false, zbar.begin(), n, curvature,
                                     lambda, d, n_threads, level, out.factor.data())) {
    return false;
  }
  out.zbar = as_eigen(zbar);
  out.scale = curvature * n;
  return true;
}

// The solve of logistic_bound_cpp() on the rows gathered in precision Z.
template <typename Z>
SEXP solve_on_rows(const Rcpp::NumericMatrix& features, const Rcpp::IntegerVector& rows,
                   const Rcpp::IntegerVector& labels, const Rcpp::NumericVector& weights,
                   const Rcpp::Nullable<Rcpp::List>& bound, const std::vector<int>& moving,
                   double lambda, const Rcpp::NumericMatrix& coefficients,
                   const Rcpp::NumericVector& intercept, const kitchen::logistic_stop& stop,
                   int n_threads,
                   kitchen::simd_level level, bool use_blas) {
  const std::size_t d = features.ncol(), k = coefficients.ncol();
  solve_preconditioner inverse;
  if (!bound.isNull() &&
      !bound_preconditioner(Rcpp::List(bound.get()), d, lambda, n_threads, level, inverse)) {
    return R_NilValue;
  }
  const logistic_rows<Z> part = gather_rows<Z>(features, rows, labels, weights, k);
  if (bound.isNull() && !curvature_at_start(features, rows, part, as_eigen(coefficients),
                                            as_eigen(intercept), lambda, n_threads, level,
                                            use_blas, inverse)) {
    return R_NilValue;
  }
  const auto solve = [&](const auto& factor) {
    return kitchen::logistic_bound_solve(
        part.zt, part.labels, part.weights, factor, inverse.zbar, inverse.scale, moving, lambda,
        as_eigen(coefficients), as_eigen(intercept), stop,
        [] { Rcpp::checkUserInterrupt(); }, logistic_threads(part.zt, k, n_threads), level,
        bound.isNull() ? &inverse.pass : nullptr);
  };
  // Single-precision rows come with the preconditioner's factor in single
  // precision too (kitchen/packed_triangular.hpp); the double one is freed.
  kitchen::logistic_bound_result fit;
  if constexpr (std::is_same<Z, float>::value) {
    const kitchen::packed_upper_factor packed(inverse.factor.data(), d);
    inverse.factor.resize(0, 0);
    fit = solve(packed);
  } else {
    fit = solve(inverse.factor);
  }
  return Rcpp::List::create(
      Rcpp::Named("coefficients") = as_r(fit.coefficients),
      Rcpp::Named("intercept") = as_r(fit.intercept), Rcpp::Named("log_loss") = fit.log_loss,
      Rcpp::Named("correct") = fit.correct, Rcpp::Named("passes") = fit.passes,
      Rcpp::Named("converged") = fit.converged, Rcpp::Named("change") = fit.change);
}

}  // namespace

// logistic_lbfgs() (R/logistic_lbfgs.R) on the rows `rows` of `features`,
// preconditioned by the bound (`bound` as bound_preconditioner() reads it)
// or, with bound NULL, by the curvature at the start (curvature_at_start());
// NULL is returned when the preconditioner is not positive definite.
// `free` the moving classes (1-based), the start (coefficients, intercept);
// `stop` = list(tol, max_iter, settle) (kitchen::logistic_stop);
// threads, `simd` as logistic_pass_cpp(), and `use_blas` for the
// curvature's Z'Z. With `single_precision`, the solve's copy of the rows
// is rounded to float (R/krr_logistic.R: CV's fold solves), halving the
// memory each pass reads; its products and sums stay in double.
// [[Rcpp::export(rng = false)]]
SEXP logistic_bound_cpp(Rcpp::NumericMatrix features, Rcpp::IntegerVector rows,
                        Rcpp::IntegerVector labels, Rcpp::NumericVector weights,
                        Rcpp::Nullable<Rcpp::List> bound, Rcpp::IntegerVector free, double lambda,
                        Rcpp::NumericMatrix coefficients, Rcpp::NumericVector intercept,
                        Rcpp::List stop, int n_threads, SEXP simd, bool use_blas,
                        bool single_precision) {
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  const kitchen::logistic_stop rule{Rcpp::as<double>(stop["tol"]),
                                    Rcpp::as<int>(stop["max_iter"]),
                                    Rcpp::as<bool>(stop["settle"])};
  const std::size_t d = features.ncol(), k = coefficients.ncol();
  if (static_cast<std::size_t>(coefficients.nrow()) != d ||
      static_cast<std::size_t>(intercept.size()) != k) {
    Rcpp::stop("coefficients must be D x K, intercept of length K.");
  }
  std::vector<int> moving(free.size());
  for (R_xlen_t j = 0; j < free.size(); ++j) {
    if (free[j] < 1 || static_cast<std::size_t>(free[j]) > k) Rcpp::stop("free must be class numbers.");
    moving[j] = free[j] - 1;
  }
  if (single_precision) {
    return solve_on_rows<float>(features, rows, labels, weights, bound, moving, lambda,
                                coefficients, intercept, rule, n_threads, level, use_blas);
  }
  return solve_on_rows<double>(features, rows, labels, weights, bound, moving, lambda, coefficients,
                               intercept, rule, n_threads, level, use_blas);
}

// M^-1 rhs with M = R'R, R the upper triangle of `factor` rounded to single
// precision and packed (kitchen/packed_triangular.hpp), on the kernels of
// `simd`; for tests.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix packed_cholesky_solve_cpp(Rcpp::NumericMatrix factor, Rcpp::NumericMatrix rhs,
                                              SEXP simd) {
  const std::size_t d = factor.nrow();
  if (factor.ncol() != factor.nrow() || static_cast<std::size_t>(rhs.nrow()) != d) {
    Rcpp::stop("factor must be square, with one row of rhs per column.");
  }
  Rcpp::NumericMatrix out = Rcpp::clone(rhs);
  kitchen::packed_cholesky_solve(kitchen::packed_upper_factor(factor.begin(), d), out.begin(),
                                 static_cast<std::size_t>(out.ncol()),
                                 kitchen_glue::simd_from_name(simd));
  return out;
}
