// Kernel logistic regression on features held in memory: the gradient pass
// and the L-BFGS loop of R/logistic_lbfgs.R (logistic_lbfgs()), step for
// step, on some rows of the feature matrix, gathered once per solve. On
// small data the R loop spent most of its time in per-pass overhead
// (thousands of passes of a few matrix products each); here a pass is two
// products of the rows.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <new>
#include <vector>

#include "kitchen/eigen.hpp"
#include "kitchen/exp_nonpositive.hpp"
#include "kitchen/packed_triangular.hpp"
#include "kitchen/simd.hpp"
#include "kitchen/thin_products.hpp"

namespace kitchen {

using logistic_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;

// The weighted log-loss at (coefficients, intercept), the weight of the
// correctly classified rows, and the gradient in the links' coefficients:
// zg = Z'W(Y - P) (D x K) and g0 = colSums(W(Y - P)).
struct logistic_pass_result {
  double log_loss = 0;
  double correct = 0;
  logistic_matrix zg;
  Eigen::VectorXd g0;
};

// Runs body(begin, end) over disjoint ranges covering [0, n_units), on
// several threads or inline; supplied by the glue (the core has no
// threads of its own). The bodies never touch shared state but their own
// units' outputs.
using logistic_runner =
    std::function<void(std::size_t n_units, const std::function<void(std::size_t, std::size_t)>&)>;

// Rows per unit of a pass: each unit's gradient Z_b'W(Y - P) is summed in
// unit order afterwards, so the result depends on n only, not on the
// threads (at least 256 rows a unit, at most about 64 units).
inline Eigen::Index logistic_unit_rows(Eigen::Index n) {
  return std::max<Eigen::Index>(256, (n + 63) / 64);
}

// Rows per block within a unit: the links and then the gradient read the
// block's features, which stay in L2 in between (about 256 KB: 104 rows at
// D = 300, 32 at D = 1000).
inline Eigen::Index logistic_block_rows(Eigen::Index d) {
  const Eigen::Index rows = (32768 / std::max<Eigen::Index>(d, 1)) / 8 * 8;
  return std::min<Eigen::Index>(256, std::max<Eigen::Index>(8, rows));
}

// A row's curvature in the preconditioner of a warm start: the largest
// eigenvalue of its softmax Hessian diag(p) - pp' is about
// (1 - sum_k p_k^2) / 2 (exactly p(1 - p) for two classes), at most the
// bound's c; floored so that every row stays in it.
constexpr double logistic_curvature_floor = 1e-3;

// zt: the rows' features, one row per column (D x n_rows, so that a block
// of rows is contiguous: thin_products.hpp), in double or single precision
// (Z); labels: class numbers 0 .. K-1. Inline when `run` is empty; the
// products and the softmax's exp() on `level`'s kernels.
// With `curvature` (n_rows long), each row's weight times its curvature
// at this point is written there.
template <typename Z>
inline logistic_pass_result logistic_pass(const thin_rows<Z>& zt, const std::vector<int>& labels,
                                          const std::vector<double>& weights,
                                          const logistic_matrix& coefficients,
                                          const Eigen::VectorXd& intercept,
                                          const logistic_runner& run = {},
                                          simd_level level = simd_level::scalar,
                                          double* curvature = nullptr) {
  const Eigen::Index n = zt.cols(), d = zt.rows(), k = coefficients.cols();
  const Eigen::Index unit = logistic_unit_rows(n);
  const std::size_t n_units = static_cast<std::size_t>((n + unit - 1) / unit);
  std::vector<logistic_matrix> zg(n_units);
  std::vector<Eigen::VectorXd> g0(n_units);
  std::vector<double> loss(n_units, 0.0), right(n_units, 0.0);
  const Eigen::Index block = logistic_block_rows(d);
  const auto units = [&](std::size_t begin, std::size_t end) {
    logistic_matrix links, residual;
    std::vector<double> top;
    for (std::size_t u = begin; u < end; ++u) {
      const Eigen::Index u0 = static_cast<Eigen::Index>(u) * unit;
      const Eigen::Index u_rows = std::min(unit, n - u0);
      zg[u] = logistic_matrix::Zero(d, k);
      g0[u] = Eigen::VectorXd::Zero(k);
      double unit_loss = 0, unit_right = 0;
      for (Eigen::Index r0 = u0; r0 < u0 + u_rows; r0 += block) {
        const Eigen::Index rows = std::min(block, u0 + u_rows - r0);
        thin_links(zt, r0, rows, coefficients, links, level);
        residual.resize(rows, k);
        // The block's softmax class by class, so that its exp() runs over
        // all the block's links at once (exp_nonpositive.hpp).
        top.assign(static_cast<std::size_t>(rows), -std::numeric_limits<double>::infinity());
        for (Eigen::Index c = 0; c < k; ++c) {
          for (Eigen::Index i = 0; i < rows; ++i) {
            links(i, c) += intercept[c];
            top[i] = std::max(top[i], links(i, c));
          }
        }
        for (Eigen::Index c = 0; c < k; ++c) {
          for (Eigen::Index i = 0; i < rows; ++i) links(i, c) -= top[i];
        }
        exp_nonpositive(links.data(), static_cast<std::size_t>(rows * k), level);
        for (Eigen::Index i = 0; i < rows; ++i) {
          double total = 0;
          for (Eigen::Index c = 0; c < k; ++c) total += links(i, c);
          Eigen::Index best = 0;
          double squares = 0;
          for (Eigen::Index c = 0; c < k; ++c) {
            links(i, c) /= total;  // now the probability
            if (links(i, c) > links(i, best)) best = c;
            squares += links(i, c) * links(i, c);
          }
          const int label = labels[r0 + i];
          const double w = weights[r0 + i];
          if (curvature) {
            curvature[r0 + i] = w * std::max((1 - squares) / 2, logistic_curvature_floor);
          }
          unit_loss -= w * std::log(std::max(links(i, label), 1e-300));
          if (best == label) unit_right += w;
          for (Eigen::Index c = 0; c < k; ++c) residual(i, c) = w * ((c == label) - links(i, c));
        }
        thin_gradient_add(zt, r0, rows, residual, zg[u], level);
        g0[u] += residual.colwise().sum().transpose();
      }
      loss[u] = unit_loss;
      right[u] = unit_right;
    }
  };
  // Eigen may allocate (and throw) inside a worker: caught there, thrown
  // again here on the calling thread.
  std::atomic<bool> failed(false);
  const auto body = [&](std::size_t begin, std::size_t end) {
    try {
      units(begin, end);
    } catch (...) {
      failed.store(true);
    }
  };
  if (run) {
    run(n_units, body);
  } else {
    body(0, n_units);
  }
  if (failed.load()) throw std::bad_alloc();
  logistic_pass_result out;
  out.zg = logistic_matrix::Zero(d, k);
  out.g0 = Eigen::VectorXd::Zero(k);
  for (std::size_t u = 0; u < n_units; ++u) {
    out.zg += zg[u];
    out.g0 += g0[u];
    out.log_loss += loss[u];
    out.correct += right[u];
  }
  return out;
}

// When logistic_bound_solve() stops: after max_iter passes, or once an
// accepted step lowers the objective by less than `tol` (relative) and,
// with `settle`, the quasi-Newton model predicts less than that below too
// (final fits; CV's fold solves score held-out rows and need less).
struct logistic_stop {
  double tol;
  int max_iter;
  bool settle;
};

struct logistic_bound_result {
  logistic_matrix coefficients;
  Eigen::VectorXd intercept;
  double log_loss = 0;
  double correct = 0;
  int passes = 0;
  double change = std::numeric_limits<double>::infinity();
  bool converged = false;
};

// A point, step or gradient in the moving classes' parameters: their
// coefficient columns (D x F) and intercepts (F).
struct logistic_free_vector {
  logistic_matrix coefficients;
  Eigen::VectorXd intercept;

  double dot(const logistic_free_vector& other) const {
    return (coefficients.array() * other.coefficients.array()).sum() +
           intercept.dot(other.intercept);
  }
  // this += a * other
  void add(double a, const logistic_free_vector& other) {
    coefficients += a * other.coefficients;
    intercept += a * other.intercept;
  }
};

// The preconditioner M^-1 applied to v, M being a quadratic like the
// bound's, a [1 Z]'[1 Z] weighted by row + 2 lambda on the coefficients,
// for each moving class:
// d = R^-1 R^-T (v_coef - zbar v_int'), d_int = v_int / scale - zbar'd,
// with `factor` the upper R of its centred coefficient block (for the
// bound, R'R = c Zc'WZc + 2 lambda I), zbar the weighted feature means and
// `scale` the intercepts' curvature (c W for the bound, W the total
// weight). For the bound, minus the gradient gives the bound's minimising
// step.
inline logistic_free_vector logistic_bound_inverse(const logistic_matrix& factor,
                                                   const Eigen::VectorXd& zbar, double scale,
                                                   const logistic_free_vector& v,
                                                   simd_level = simd_level::scalar) {
  const auto upper = factor.triangularView<Eigen::Upper>();
  logistic_matrix rhs = v.coefficients - zbar * v.intercept.transpose();
  logistic_free_vector out;
  out.coefficients = upper.solve(upper.transpose().solve(rhs));
  out.intercept = v.intercept / scale - out.coefficients.transpose() * zbar;
  return out;
}

// The same with the factor rounded to single precision and packed
// (packed_triangular.hpp), for the solves on single-precision rows.
inline logistic_free_vector logistic_bound_inverse(const packed_upper_factor& factor,
                                                   const Eigen::VectorXd& zbar, double scale,
                                                   const logistic_free_vector& v,
                                                   simd_level level) {
  logistic_free_vector out;
  out.coefficients = v.coefficients - zbar * v.intercept.transpose();
  packed_cholesky_solve(factor, out.coefficients.data(),
                        static_cast<std::size_t>(out.coefficients.cols()), level);
  out.intercept = v.intercept / scale - out.coefficients.transpose() * zbar;
  return out;
}

// Minimises the penalised log-loss by limited-memory BFGS (the last
// `memory` steps), its initial inverse Hessian being M^-1
// (logistic_bound_inverse(): the bound's, or the curvature at a warm start
// from R/krr_logistic.R) scaled by s'y / y'M^-1 y of the newest step. The
// bound is far above the Hessian where rows are fitted with confidence,
// so its own step (the former bound optimisation) is short there; the BFGS
// pairs learn the true curvature: on Satellite (6 classes, D = 300) a third
// to a half of the passes for the same objective. Each trial point is one
// pass (the objective and the gradient together); a step is accepted on
// sufficient decrease (Armijo), halved otherwise, and a direction that
// does not descend falls back to the preconditioned gradient step. Stops
// as `stop` says (logistic_stop) or when no step can lower the objective
// beyond rounding. `free` are the classes whose links move (the second only, for
// two classes). `interrupt` is called every few passes; each pass runs on
// `run` and `level` (logistic_pass()). `start_pass`, when given, is the
// pass already made at the start (by the curvature preconditioner): it
// counts as the first pass and is not made again. `factor` is M's upper
// factor in double (logistic_matrix) or, beside rows in single precision,
// rounded to single and packed (packed_upper_factor).
template <typename Z, typename Factor>
inline logistic_bound_result logistic_bound_solve(
    const thin_rows<Z>& zt, const std::vector<int>& labels, const std::vector<double>& weights,
    const Factor& factor, const Eigen::VectorXd& zbar, double scale,
    const std::vector<int>& free, double lambda, logistic_matrix coefficients,
    Eigen::VectorXd intercept, const logistic_stop& stop, const std::function<void()>& interrupt,
    const logistic_runner& run = {}, simd_level level = simd_level::scalar,
    const logistic_pass_result* start_pass = nullptr) {
  constexpr std::size_t memory = 10;
  constexpr double armijo = 1e-4;
  const Eigen::Index d = zt.rows();
  const Eigen::Index n_free = static_cast<Eigen::Index>(free.size());
  struct evaluated {
    double objective = 0, log_loss = 0, correct = 0;
    logistic_free_vector gradient, preconditioned;  // g and M^-1 g (accepted points)
  };
  const auto precondition = [&](evaluated& e) {
    e.preconditioned = logistic_bound_inverse(factor, zbar, scale, e.gradient, level);
  };
  // A pass at (b, b0): objective and gradient in the moving classes.
  const auto evaluated_from = [&](const logistic_pass_result& pass, const logistic_matrix& b) {
    evaluated e;
    e.objective = pass.log_loss + lambda * b.squaredNorm();
    e.log_loss = pass.log_loss;
    e.correct = pass.correct;
    e.gradient.coefficients.resize(d, n_free);
    e.gradient.intercept.resize(n_free);
    for (Eigen::Index j = 0; j < n_free; ++j) {
      const int c = free[j];
      e.gradient.coefficients.col(j) = 2 * lambda * b.col(c) - pass.zg.col(c);
      e.gradient.intercept[j] = -pass.g0[c];
    }
    return e;
  };
  logistic_bound_result out;
  const auto evaluate = [&](const logistic_matrix& b, const Eigen::VectorXd& b0) {
    if (out.passes % 16 == 15) interrupt();
    const logistic_pass_result pass = logistic_pass(zt, labels, weights, b, b0, run, level);
    ++out.passes;
    return evaluated_from(pass, b);
  };
  const auto moved = [&](const logistic_free_vector& step, double t, logistic_matrix& b,
                         Eigen::VectorXd& b0) {
    b = coefficients;
    b0 = intercept;
    for (Eigen::Index j = 0; j < n_free; ++j) {
      b.col(free[j]) += t * step.coefficients.col(j);
      b0[free[j]] += t * step.intercept[j];
    }
  };
  // s, y and M^-1 y (the difference of the M^-1 g, so that each step
  // applies M^-1 once), oldest first, with s'y.
  std::vector<logistic_free_vector> steps, changes, preconditioned_changes;
  std::vector<double> curvatures;
  evaluated current;
  if (start_pass) {
    ++out.passes;
    current = evaluated_from(*start_pass, coefficients);
  } else {
    current = evaluate(coefficients, intercept);
  }
  precondition(current);
  logistic_matrix trial_b;
  Eigen::VectorXd trial_b0;
  while (out.passes < stop.max_iter) {
    // Two-loop recursion for -H g, H0 = gamma M^-1: q = g - sum alpha_i y_i
    // and, alongside, r = M^-1 q.
    logistic_free_vector q = current.gradient, r = current.preconditioned;
    std::vector<double> alpha(steps.size());
    for (std::size_t i = steps.size(); i-- > 0;) {
      alpha[i] = steps[i].dot(q) / curvatures[i];
      q.add(-alpha[i], changes[i]);
      r.add(-alpha[i], preconditioned_changes[i]);
    }
    if (!steps.empty()) {
      const double gamma = curvatures.back() / changes.back().dot(preconditioned_changes.back());
      r.coefficients *= gamma;
      r.intercept *= gamma;
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
      r.add(alpha[i] - changes[i].dot(r) / curvatures[i], steps[i]);
    }
    logistic_free_vector direction{-r.coefficients, -r.intercept};
    double slope = current.gradient.dot(direction);
    if (!(slope < 0)) {  // not a descent direction: the preconditioned gradient step
      steps.clear();
      changes.clear();
      preconditioned_changes.clear();
      curvatures.clear();
      direction = {-current.preconditioned.coefficients, -current.preconditioned.intercept};
      slope = current.gradient.dot(direction);
    }
    // Settled: the last step lowered the objective by less than `tol`
    // (relative), and the quasi-Newton model predicts less than that below
    // (-slope / 2, its decrease to its minimum). The first test alone stops
    // short where the objective falls slowly (small lambda, nearly
    // separable classes: 5e-4 above the optimum on iris at lambda 1e-4).
    if (stop.settle && out.change < stop.tol && -slope <= 2 * stop.tol * current.objective) {
      out.converged = true;
      break;
    }
    double t = 1;
    bool accepted = false, rounding = false;
    evaluated trial;
    for (;;) {
      moved(direction, t, trial_b, trial_b0);
      trial = evaluate(trial_b, trial_b0);
      if (trial.objective <= current.objective + armijo * t * slope) {
        accepted = true;
        break;
      }
      // A predicted decrease below the objective's rounding: nothing left.
      rounding = -t * slope <= 1e-14 * current.objective;
      if (out.passes >= stop.max_iter || rounding) break;
      t /= 2;
    }
    const double change =
        std::abs(current.objective - trial.objective) / std::max(trial.objective, 1e-300);
    if (!accepted) {
      // At rounding level no step lowers the objective: converged there.
      // Out of passes, the last accepted step's change stands.
      if (rounding) {
        out.change = change;
        out.converged = true;
      }
      break;
    }
    out.change = change;
    precondition(trial);
    logistic_free_vector s{t * direction.coefficients, t * direction.intercept};
    logistic_free_vector y{trial.gradient.coefficients - current.gradient.coefficients,
                           trial.gradient.intercept - current.gradient.intercept};
    const double sy = s.dot(y);
    if (sy > 1e-12 * std::sqrt(s.dot(s) * y.dot(y))) {
      if (steps.size() == memory) {
        steps.erase(steps.begin());
        changes.erase(changes.begin());
        preconditioned_changes.erase(preconditioned_changes.begin());
        curvatures.erase(curvatures.begin());
      }
      steps.push_back(std::move(s));
      changes.push_back(std::move(y));
      preconditioned_changes.push_back(
          {trial.preconditioned.coefficients - current.preconditioned.coefficients,
           trial.preconditioned.intercept - current.preconditioned.intercept});
      curvatures.push_back(sy);
    }
    coefficients = trial_b;
    intercept = trial_b0;
    current = std::move(trial);
    if (!stop.settle && out.change < stop.tol) {
      out.converged = true;
      break;
    }
  }
  out.coefficients = std::move(coefficients);
  out.intercept = std::move(intercept);
  out.log_loss = current.log_loss;
  out.correct = current.correct;
  return out;
}

}  // namespace kitchen
