// Glue for kernel logistic regression on features held in memory
// (kitchen/logistic_bound.hpp): the gradient pass and the bound-optimisation
// loop on some rows of the n x D feature matrix, gathered once per call
// (R/krr_logistic.R, memory_logistic_source()).
#include <Rcpp.h>

#include <cstddef>
#include <vector>

#include "kitchen/logistic_bound.hpp"
#include "parallel_chunks.h"

namespace {

// The rows `rows` (1-based) of `features`, with their class numbers
// (1-based in R, 0-based here) and weights.
struct logistic_rows {
  kitchen::logistic_matrix z;
  std::vector<int> labels;
  std::vector<double> weights;
};

logistic_rows gather_rows(const Rcpp::NumericMatrix& features, const Rcpp::IntegerVector& rows,
                          const Rcpp::IntegerVector& labels, const Rcpp::NumericVector& weights,
                          int n_classes) {
  const std::size_t n = rows.size(), d = features.ncol(), total = features.nrow();
  if (static_cast<std::size_t>(labels.size()) != total ||
      static_cast<std::size_t>(weights.size()) != total) {
    Rcpp::stop("labels and weights must have one value per row of features.");
  }
  logistic_rows out{kitchen::logistic_matrix(n, d), std::vector<int>(n), std::vector<double>(n)};
  for (std::size_t i = 0; i < n; ++i) {
    const int r = rows[i];
    if (r < 1 || static_cast<std::size_t>(r) > total) Rcpp::stop("rows must be row numbers of features.");
    const int label = labels[r - 1];
    if (label < 1 || label > n_classes) Rcpp::stop("labels must be class numbers.");
    out.labels[i] = label - 1;
    out.weights[i] = weights[r - 1];
  }
  const double* f = features.begin();
  for (std::size_t j = 0; j < d; ++j) {
    const double* column = f + j * total;
    for (std::size_t i = 0; i < n; ++i) out.z(i, j) = column[rows[i] - 1];
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
kitchen::logistic_runner logistic_threads(const kitchen::logistic_matrix& z, std::size_t k,
                                          int n_threads) {
  const double unit_cost = 4.0 * kitchen::logistic_unit_rows(z.rows()) * z.cols() * k;
  return [unit_cost, n_threads](std::size_t n_units,
                                const std::function<void(std::size_t, std::size_t)>& body) {
    kitchen_glue::parallel_for_chunks(n_units, unit_cost, n_threads, body);
  };
}

}  // namespace

// One pass over the rows `rows` (1-based) of `features` (n x D) with class
// numbers `labels` and `weights` (one per row of features): log_loss,
// correct, zg (D x K) and g0 at (coefficients D x K, intercept K); on
// n_threads threads, the same result for any number.
// [[Rcpp::export(rng = false)]]
Rcpp::List logistic_pass_cpp(Rcpp::NumericMatrix features, Rcpp::IntegerVector rows,
                             Rcpp::IntegerVector labels, Rcpp::NumericVector weights,
                             Rcpp::NumericMatrix coefficients, Rcpp::NumericVector intercept,
                             int n_threads = 1) {
  if (coefficients.nrow() != features.ncol() || intercept.size() != coefficients.ncol()) {
    Rcpp::stop("coefficients must be D x K and intercept of length K.");
  }
  const logistic_rows part = gather_rows(features, rows, labels, weights, coefficients.ncol());
  const kitchen::logistic_pass_result pass = kitchen::logistic_pass(
      part.z, part.labels, part.weights, as_eigen(coefficients), as_eigen(intercept),
      logistic_threads(part.z, coefficients.ncol(), n_threads));
  return Rcpp::List::create(Rcpp::Named("log_loss") = pass.log_loss,
                            Rcpp::Named("correct") = pass.correct,
                            Rcpp::Named("zg") = as_r(pass.zg), Rcpp::Named("g0") = as_r(pass.g0));
}

// logistic_bound() (R/krr_logistic.R) on the rows `rows` of `features`:
// `factor` the upper Cholesky factor of the bound plus 2 lambda I, `free`
// the moving classes (1-based), the start (coefficients, intercept).
// [[Rcpp::export(rng = false)]]
Rcpp::List logistic_bound_cpp(Rcpp::NumericMatrix features, Rcpp::IntegerVector rows,
                              Rcpp::IntegerVector labels, Rcpp::NumericVector weights,
                              Rcpp::NumericMatrix factor, Rcpp::NumericVector zbar,
                              double curvature, Rcpp::IntegerVector free, double total_weight,
                              double lambda, Rcpp::NumericMatrix coefficients,
                              Rcpp::NumericVector intercept, double tol, int max_iter,
                              int n_threads = 1) {
  const std::size_t d = features.ncol(), k = coefficients.ncol();
  if (static_cast<std::size_t>(coefficients.nrow()) != d ||
      static_cast<std::size_t>(intercept.size()) != k ||
      static_cast<std::size_t>(factor.nrow()) != d ||
      static_cast<std::size_t>(factor.ncol()) != d ||
      static_cast<std::size_t>(zbar.size()) != d) {
    Rcpp::stop("factor must be D x D, zbar of length D, coefficients D x K, intercept of length K.");
  }
  std::vector<int> moving(free.size());
  for (R_xlen_t j = 0; j < free.size(); ++j) {
    if (free[j] < 1 || static_cast<std::size_t>(free[j]) > k) Rcpp::stop("free must be class numbers.");
    moving[j] = free[j] - 1;
  }
  const logistic_rows part = gather_rows(features, rows, labels, weights, k);
  const kitchen::logistic_bound_result fit = kitchen::logistic_bound_solve(
      part.z, part.labels, part.weights, as_eigen(factor), as_eigen(zbar), curvature, moving,
      total_weight, lambda, as_eigen(coefficients), as_eigen(intercept), tol, max_iter,
      [] { Rcpp::checkUserInterrupt(); }, logistic_threads(part.z, k, n_threads));
  return Rcpp::List::create(
      Rcpp::Named("coefficients") = as_r(fit.coefficients),
      Rcpp::Named("intercept") = as_r(fit.intercept), Rcpp::Named("log_loss") = fit.log_loss,
      Rcpp::Named("correct") = fit.correct, Rcpp::Named("passes") = fit.passes,
      Rcpp::Named("converged") = fit.change < tol, Rcpp::Named("change") = fit.change);
}
