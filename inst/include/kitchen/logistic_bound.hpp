// Kernel logistic regression on features held in memory: the gradient pass
// and the bound-optimisation loop of R/krr_logistic.R (logistic_bound()),
// step for step, on the rows `rows` of an n x D feature matrix. On small
// data the R loop spent most of its time in per-pass overhead (thousands
// of passes of a few matrix products each); here a pass is two products
// of the fold's rows, gathered once.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

#include "kitchen/eigen.hpp"

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

// z: the rows' features (n_rows x D); labels: class numbers 0 .. K-1.
// Inline when `run` is empty.
inline logistic_pass_result logistic_pass(const logistic_matrix& z, const std::vector<int>& labels,
                                          const std::vector<double>& weights,
                                          const logistic_matrix& coefficients,
                                          const Eigen::VectorXd& intercept,
                                          const logistic_runner& run = {}) {
  const Eigen::Index n = z.rows(), d = z.cols(), k = coefficients.cols();
  const Eigen::Index unit = logistic_unit_rows(n);
  const std::size_t n_units = static_cast<std::size_t>((n + unit - 1) / unit);
  std::vector<logistic_matrix> zg(n_units);
  std::vector<Eigen::VectorXd> g0(n_units);
  std::vector<double> loss(n_units, 0.0), right(n_units, 0.0);
  const auto body = [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) {
      const Eigen::Index r0 = static_cast<Eigen::Index>(u) * unit;
      const Eigen::Index rows = std::min(unit, n - r0);
      logistic_matrix links = z.middleRows(r0, rows) * coefficients;
      logistic_matrix residual(rows, k);
      double unit_loss = 0, unit_right = 0;
      for (Eigen::Index i = 0; i < rows; ++i) {
        double top = -std::numeric_limits<double>::infinity();
        for (Eigen::Index c = 0; c < k; ++c) {
          links(i, c) += intercept[c];
          top = std::max(top, links(i, c));
        }
        double total = 0;
        for (Eigen::Index c = 0; c < k; ++c) {
          links(i, c) = std::exp(links(i, c) - top);
          total += links(i, c);
        }
        Eigen::Index best = 0;
        for (Eigen::Index c = 0; c < k; ++c) {
          links(i, c) /= total;  // now the probability
          if (links(i, c) > links(i, best)) best = c;
        }
        const int label = labels[r0 + i];
        const double w = weights[r0 + i];
        unit_loss -= w * std::log(std::max(links(i, label), 1e-300));
        if (best == label) unit_right += w;
        for (Eigen::Index c = 0; c < k; ++c) residual(i, c) = w * ((c == label) - links(i, c));
      }
      zg[u].noalias() = z.middleRows(r0, rows).transpose() * residual;
      g0[u] = residual.colwise().sum().transpose();
      loss[u] = unit_loss;
      right[u] = unit_right;
    }
  };
  if (run) {
    run(n_units, body);
  } else {
    body(0, n_units);
  }
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

struct logistic_bound_result {
  logistic_matrix coefficients;
  Eigen::VectorXd intercept;
  double log_loss = 0;
  double correct = 0;
  int passes = 0;
  double change = std::numeric_limits<double>::infinity();
};

// Bound optimisation with Nesterov's extrapolation, restarted when the
// objective rises (the R loop of logistic_bound()). `factor` is the upper
// Cholesky factor R of c Zc'WZc + 2 lambda I (R'R), `zbar` the weighted
// feature means, `free` the classes whose links move (the second only, for
// two classes), `total_weight` the sum of the weights. `interrupt` is
// called every few passes; each pass runs on `run` (logistic_pass()).
inline logistic_bound_result logistic_bound_solve(
    const logistic_matrix& z, const std::vector<int>& labels, const std::vector<double>& weights,
    const logistic_matrix& factor, const Eigen::VectorXd& zbar, double curvature,
    const std::vector<int>& free, double total_weight, double lambda, logistic_matrix coefficients,
    Eigen::VectorXd intercept, double tol, int max_iter, const std::function<void()>& interrupt,
    const logistic_runner& run = {}) {
  struct point {
    logistic_matrix coefficients;
    Eigen::VectorXd intercept;
  };
  struct accepted_step {
    point at, bound_step;
    double objective = 0, log_loss = 0, correct = 0;
    bool has_bound_step = false;
  };
  const Eigen::Index d = z.cols();
  const auto upper = factor.triangularView<Eigen::Upper>();
  point state{std::move(coefficients), std::move(intercept)};
  bool have_accepted = false, have_previous = false;
  accepted_step accepted, previous;
  double momentum = 1;
  logistic_bound_result out;
  logistic_matrix rhs(d, free.size());
  for (;;) {
    if (out.passes % 16 == 15) interrupt();
    const logistic_pass_result pass = logistic_pass(z, labels, weights, state.coefficients,
                                                    state.intercept, run);
    ++out.passes;
    const double objective = pass.log_loss + lambda * state.coefficients.squaredNorm();
    if (have_accepted && objective > accepted.objective) {
      if (out.passes >= max_iter) break;
      state = accepted.bound_step;
      momentum = 1;
      continue;
    }
    if (have_accepted) {
      out.change = std::abs(accepted.objective - objective) / std::max(objective, 1e-300);
    }
    previous = std::move(accepted);
    have_previous = have_accepted;
    accepted = accepted_step{state, point{}, objective, pass.log_loss, pass.correct, false};
    have_accepted = true;
    if (out.change < tol || out.passes >= max_iter) break;
    for (std::size_t j = 0; j < free.size(); ++j) {
      const int c = free[j];
      rhs.col(j) = pass.zg.col(c) - zbar * pass.g0[c] - 2 * lambda * state.coefficients.col(c);
    }
    const logistic_matrix step = upper.solve(upper.transpose().solve(rhs));
    point bound_step = state;
    for (std::size_t j = 0; j < free.size(); ++j) {
      const int c = free[j];
      bound_step.coefficients.col(c) += step.col(j);
      bound_step.intercept[c] += pass.g0[c] / (curvature * total_weight) - zbar.dot(step.col(j));
    }
    accepted.bound_step = bound_step;
    accepted.has_bound_step = true;
    const double next_momentum = (1 + std::sqrt(1 + 4 * momentum * momentum)) / 2;
    state = bound_step;
    if (have_previous && previous.has_bound_step) {
      const double blend = (momentum - 1) / next_momentum;
      state.coefficients += blend * (bound_step.coefficients - previous.bound_step.coefficients);
      state.intercept += blend * (bound_step.intercept - previous.bound_step.intercept);
    }
    momentum = next_momentum;
  }
  out.coefficients = std::move(accepted.at.coefficients);
  out.intercept = std::move(accepted.at.intercept);
  out.log_loss = accepted.log_loss;
  out.correct = accepted.correct;
  return out;
}

}  // namespace kitchen
