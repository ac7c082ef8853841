// Glue for krr_fit(solver = "falkon") on Nystroem maps (the method is
// described in kitchen/falkon.hpp): the rows' kernel values with the
// centers are computed block by block over threads in every pass and never
// held; the preconditioner's Cholesky factor is the only M x M matrix
// formed here (besides the map's own K_CC^(-1/2)). Workers only run pure
// C++ on buffers allocated beforehand (a throwing Eigen allocation is caught
// in the worker and reported here); the main thread checks for interrupts
// after each block and each iteration.
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "cholesky_threads.h"
#include "kitchen/blocked_cholesky.hpp"
#include "kitchen/falkon.hpp"
#include "kitchen/nystrom.hpp"
#include "parallel_chunks.h"

namespace {

using kitchen::falkon_matrix;

// Groups of rows or centers handed to a worker in the block products.
constexpr std::size_t falkon_group = 64;

// The kernel values of blocks of rows of x with the centers, in turn.
class kernel_stream {
 public:
  kernel_stream(const Rcpp::NumericMatrix& x, const Rcpp::NumericVector& center,
                const Rcpp::NumericVector& divisor, const Rcpp::NumericMatrix& centers,
                kitchen::kernel_kind kind, int n_threads)
      : x_(x.begin()), n_(x.nrow()), d_(x.ncol()), m_(centers.nrow()), center_(center.begin()),
        divisor_(divisor.begin()), centers_(kitchen::column_major(centers.begin(), m_, d_)),
        kind_(kind), n_threads_(n_threads),
        block_(std::min<std::size_t>(std::max<std::size_t>(n_, 1), kitchen::nystrom_block_rows)),
        scaled_(block_ * d_), kb_(block_ * m_) {}

  std::size_t n() const { return n_; }
  std::size_t m() const { return m_; }

  // acc (M x q) = sum over blocks of K_b' u_b, with u_b = weight * (K_b t)
  // when t (M x q) is given, else u_b = the block's rows of `given` (n x q).
  void cross(const double* t, const double* given, std::size_t q, const double* weight,
             double* acc) {
    std::fill(acc, acc + m_ * q, 0.0);
    std::vector<double> u(block_ * q);
    for (std::size_t r0 = 0; r0 < n_; r0 += block_) {
      const std::size_t rows = std::min(block_, n_ - r0);
      kernel_block(r0, rows);
      if (t) {
        rows_times(t, q, weight ? weight + r0 : nullptr, rows, u.data());
      } else {
        for (std::size_t j = 0; j < q; ++j) {
          std::copy(given + j * n_ + r0, given + j * n_ + r0 + rows, u.data() + j * rows);
        }
      }
      run([&](std::size_t begin, std::size_t end) {
        kitchen::falkon_cross_add(kb_.data(), rows, m_, u.data(), q, begin * falkon_group,
                                  std::min(m_, end * falkon_group), acc);
      }, (m_ + falkon_group - 1) / falkon_group, 2.0 * rows * q * falkon_group);
      Rcpp::checkUserInterrupt();
    }
  }

  // out (n x q) = K_nM t.
  void times(const double* t, std::size_t q, double* out) {
    std::vector<double> u(block_ * q);
    for (std::size_t r0 = 0; r0 < n_; r0 += block_) {
      const std::size_t rows = std::min(block_, n_ - r0);
      kernel_block(r0, rows);
      rows_times(t, q, nullptr, rows, u.data());
      for (std::size_t j = 0; j < q; ++j) {
        std::copy(u.data() + j * rows, u.data() + (j + 1) * rows, out + j * n_ + r0);
      }
      Rcpp::checkUserInterrupt();
    }
  }

  // K_CC into out (M x M).
  void centers_gram(double* out) {
    run([&](std::size_t begin, std::size_t end) {
      for (std::size_t tile = begin; tile < end; ++tile) {
        kitchen::kernel_matrix_tile(kind_, 1.0, centers_, centers_, tile, out);
      }
    }, kitchen::kernel_matrix_tiles(m_, m_), tile_cost());
  }

 private:
  double tile_cost() const {
    return kitchen::kernel_tile_elements(kitchen::kernel_tile_rows, kitchen::kernel_tile_columns) *
           (3.0 * d_ + 20.0);
  }

  void kernel_block(std::size_t r0, std::size_t rows) {
    kitchen::nystrom_rescale_rows(x_, n_, r0, rows, d_, center_, divisor_, scaled_.data());
    const kitchen::matrix_view xv = kitchen::column_major(scaled_.data(), rows, d_);
    run([&](std::size_t begin, std::size_t end) {
      for (std::size_t tile = begin; tile < end; ++tile) {
        kitchen::kernel_matrix_tile(kind_, 1.0, xv, centers_, tile, kb_.data());
      }
    }, kitchen::kernel_matrix_tiles(rows, m_), tile_cost());
  }

  void rows_times(const double* t, std::size_t q, const double* weight, std::size_t rows,
                  double* u) {
    run([&](std::size_t begin, std::size_t end) {
      kitchen::falkon_rows_times(kb_.data(), rows, m_, t, q, weight, begin * falkon_group,
                                 std::min(rows, end * falkon_group), u);
    }, (rows + falkon_group - 1) / falkon_group, 2.0 * m_ * q * falkon_group);
  }

  // body over [0, n_units) on the threads; an exception in a worker (an
  // allocation inside Eigen) is reported on the main thread.
  template <class Body>
  void run(Body body, std::size_t n_units, double unit_cost) {
    std::atomic<bool> failed(false);
    kitchen_glue::parallel_for_chunks(n_units, unit_cost, n_threads_,
                                      [&](std::size_t begin, std::size_t end) {
      try {
        body(begin, end);
      } catch (...) {
        failed.store(true);
      }
    });
    if (failed.load()) Rcpp::stop("Not enough memory for the FALKON block products.");
  }

  const double* x_;
  std::size_t n_, d_, m_;
  const double* center_;
  const double* divisor_;
  kitchen::matrix_view centers_;
  kitchen::kernel_kind kind_;
  int n_threads_;
  std::size_t block_;
  std::vector<double> scaled_, kb_;
};

}  // namespace

// x: n x d dense doubles; center, divisor: d; centers: M x d (rescaled and
// divided by the bandwidth); normalization: M x M, K_CC^(-1/2); kind: a name
// known to kitchen::kernel_kind_from_name() other than "distance"; y: n x k;
// weights: n positive doubles; lambda > 0. Returns the weights w (M x k),
// zbar, ybar, the fitted values without intercept (n x k) and the solver's
// report, or a string naming what is wrong, for R to report.
// [[Rcpp::export(rng = false)]]
SEXP falkon_solve_cpp(Rcpp::NumericMatrix x, Rcpp::NumericVector center,
                      Rcpp::NumericVector divisor, Rcpp::NumericMatrix centers,
                      Rcpp::NumericMatrix normalization, std::string kind, Rcpp::NumericMatrix y,
                      Rcpp::NumericVector weights, double lambda, double tol, int max_iter,
                      int n_threads) {
  kitchen::kernel_kind kernel;
  if (!kitchen::kernel_kind_from_name(kind, kernel) || kernel == kitchen::kernel_kind::distance) {
    return Rf_mkString("{.field kernel} must be a kernel with a closed form here.");
  }
  const std::size_t n = x.nrow(), d = x.ncol(), m = centers.nrow(), k = y.ncol();
  if (static_cast<std::size_t>(centers.ncol()) != d || static_cast<std::size_t>(center.size()) != d ||
      static_cast<std::size_t>(divisor.size()) != d) {
    return Rf_mkString("{.field centers} must have one column per column of the data.");
  }
  if (static_cast<std::size_t>(normalization.nrow()) != m ||
      static_cast<std::size_t>(normalization.ncol()) != m) {
    return Rf_mkString("{.field normalization} must be a square matrix with one row per center.");
  }
  if (static_cast<std::size_t>(y.nrow()) != n || static_cast<std::size_t>(weights.size()) != n ||
      n == 0 || m == 0 || k == 0 || !(lambda > 0) || !(tol > 0) || max_iter < 1) {
    Rcpp::stop("falkon_solve_cpp: inconsistent arguments.");
  }
  kernel_stream stream(x, center, divisor, centers, kernel, n_threads);
  Eigen::Map<const falkon_matrix> normal(normalization.begin(), m, m);

  // One pass: K_Mn [w, w * y] gives zbar and the right-hand side.
  falkon_matrix given(n, k + 1);
  double total = 0;
  Eigen::VectorXd ybar = Eigen::VectorXd::Zero(k);
  for (std::size_t i = 0; i < n; ++i) {
    const double wi = weights[i];
    given(i, 0) = wi;
    total += wi;
    for (std::size_t j = 0; j < k; ++j) {
      given(i, j + 1) = wi * y(i, j);
      ybar[j] += wi * y(i, j);
    }
  }
  ybar /= total;
  falkon_matrix moments(m, k + 1);
  stream.cross(nullptr, given.data(), k + 1, nullptr, moments.data());
  given.resize(0, 0);
  const Eigen::VectorXd zbar = normal * moments.col(0) / total;
  const falkon_matrix b = normal * moments.rightCols(k) - total * zbar * ybar.transpose();

  // The preconditioner c K_CC + lambda I, c = total / M, factored once; a
  // jitter at rounding level is added (and raised) if K_CC + lambda / c I is
  // not positive definite to double precision.
  const double c = total / static_cast<double>(m);
  Rcpp::NumericMatrix factor(m, m);
  double jitter = static_cast<double>(m) * std::numeric_limits<double>::epsilon();
  bool factored = false;
  for (int attempt = 0; attempt < 6 && !factored; ++attempt, jitter *= 100) {
    stream.centers_gram(factor.begin());
    for (std::size_t j = 0; j < m; ++j) factor(j, j) += lambda / c + jitter;
    factored = kitchen_glue::cholesky_in_place(factor.begin(), m, n_threads);
  }
  if (!factored) return Rf_mkString("K_CC + lambda I could not be factored: raise {.arg lambda}.");
  auto precondition = [&](const falkon_matrix& r) {
    falkon_matrix z = r / c;
    kitchen::cholesky_solve(factor.begin(), m, z.data(), k);
    return z;
  };
  falkon_matrix t(m, k), cross(m, k);
  auto apply = [&](const falkon_matrix& v) {
    t.noalias() = normal * v;
    stream.cross(t.data(), nullptr, k, weights.begin(), cross.data());
    falkon_matrix out = normal * cross;
    out -= total * zbar * (zbar.transpose() * v);
    out += lambda * v;
    return out;
  };

  // Preconditioned conjugate gradients, all columns at once.
  falkon_matrix w = falkon_matrix::Zero(m, k), r = b;
  const Eigen::VectorXd b_norm = b.colwise().norm().transpose();
  auto relative = [&](const falkon_matrix& res) {
    Eigen::VectorXd out(k);
    for (std::size_t j = 0; j < k; ++j) out[j] = b_norm[j] > 0 ? res.col(j).norm() / b_norm[j] : 0;
    return out;
  };
  Eigen::VectorXd residual = relative(r);
  falkon_matrix z = precondition(r), p = z;
  Eigen::VectorXd rz = (r.cwiseProduct(z)).colwise().sum().transpose();
  int iterations = 0;
  while (residual.maxCoeff() > tol && iterations < max_iter) {
    const falkon_matrix ap = apply(p);
    ++iterations;
    const Eigen::VectorXd pap = (p.cwiseProduct(ap)).colwise().sum().transpose();
    for (std::size_t j = 0; j < k; ++j) {
      const double alpha = pap[j] > 0 ? rz[j] / pap[j] : 0;
      w.col(j) += alpha * p.col(j);
      r.col(j) -= alpha * ap.col(j);
    }
    residual = relative(r);
    if (residual.maxCoeff() <= tol) break;
    z = precondition(r);
    const Eigen::VectorXd rz_next = (r.cwiseProduct(z)).colwise().sum().transpose();
    for (std::size_t j = 0; j < k; ++j) {
      const double beta = rz[j] > 0 ? rz_next[j] / rz[j] : 0;
      p.col(j) = z.col(j) + beta * p.col(j);
    }
    rz = rz_next;
    Rcpp::checkUserInterrupt();
  }

  // Fitted values (without the intercept): one more pass.
  t.noalias() = normal * w;
  Rcpp::NumericMatrix fitted(n, k);
  stream.times(t.data(), k, fitted.begin());
  Rcpp::NumericMatrix coefficients(m, k);
  std::copy(w.data(), w.data() + m * k, coefficients.begin());
  return Rcpp::List::create(
      Rcpp::Named("coefficients") = coefficients,
      Rcpp::Named("zbar") = Rcpp::NumericVector(zbar.data(), zbar.data() + m),
      Rcpp::Named("ybar") = Rcpp::NumericVector(ybar.data(), ybar.data() + k),
      Rcpp::Named("total_weight") = total, Rcpp::Named("fitted") = fitted,
      Rcpp::Named("iterations") = iterations,
      Rcpp::Named("residual") = Rcpp::NumericVector(residual.data(), residual.data() + k));
}
