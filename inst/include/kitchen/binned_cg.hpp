// Preconditioned conjugate gradients for a symmetric positive definite
// system A x = b given only as a product, on raw memory. The ridge solver
// of random binning fits (R/krr_binned.R) runs it on the centred, row
// weighted system (Zc' W Zc + lambda I) w = Zc' W y through
// binned_products.hpp; in C++ because each iteration's vector updates over
// millions of columns cost as much again as the products when done in R.
//
// Several right-hand sides (one per class) are solved in lockstep: one
// product per iteration serves them all, so the bin columns are read once
// per iteration instead of once per class, and each row's bin reads the k
// values of its column together. Each right-hand side keeps its own step
// sizes and stopping rule, and its arithmetic is that of a solve on its
// own, in the same order: the results are bitwise those of k separate
// solves.
#pragma once

#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace kitchen {

// The width of one right-hand side, known when compiling.
using one_column_t = std::integral_constant<std::size_t, 1>;
constexpr one_column_t one_column{};

struct cg_report {
  int iterations;
  double residual;  // ||b - A x|| / ||b||
};

// Solves A X = B for k right-hand sides from the start in X, in place,
// each until ||b - A x|| <= tol ||b|| or max_iter iterations. Vectors are
// interleaved: entry i of right-hand side j at [i * k + j] (B, X and the
// products). apply(P, AP) writes A P for all k columns of P; precondition
// holds the diagonal preconditioner (positive, n values); between
// iterations, between() runs on the calling thread (interrupt checks).
// report receives k reports. `k` is a std::size_t, or a
// std::integral_constant for a width known when compiling: one right-hand
// side then runs loops without an inner one (25% faster at k = 1).
template <class Apply, class Between, class Width>
void preconditioned_cg_columns(Apply apply, const double* b, const double* precondition,
                               std::size_t n, Width k, double tol, int max_iter, double* x,
                               Between between, cg_report* report) {
  std::vector<double> b_norm(k, 0.0), rz(k, 0.0), rr(k, 0.0), pap(k), alpha(k), rz_next(k),
      beta(k);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) b_norm[j] += b[i * k + j] * b[i * k + j];
  }
  std::vector<char> active(k);
  std::size_t n_active = 0;
  for (std::size_t j = 0; j < k; ++j) {
    b_norm[j] = std::sqrt(b_norm[j]);
    report[j] = {0, 0.0};
    if (b_norm[j] == 0) {
      for (std::size_t i = 0; i < n; ++i) x[i * k + j] = 0;
    } else {
      active[j] = 1;
      ++n_active;
    }
  }
  if (n_active == 0) return;
  std::vector<double> r(n * k), z(n * k), p(n * k), ap(n * k);
  apply(x, ap.data());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      if (!active[j]) continue;
      const std::size_t at = i * k + j;
      r[at] = b[at] - ap[at];
      z[at] = r[at] / precondition[i];
      p[at] = z[at];
      rz[j] += r[at] * z[at];
      rr[j] += r[at] * r[at];
    }
  }
  for (;;) {
    n_active = 0;
    for (std::size_t j = 0; j < k; ++j) {
      active[j] = active[j] && std::sqrt(rr[j]) > tol * b_norm[j] &&
                  report[j].iterations < max_iter;
      n_active += active[j];
    }
    if (n_active == 0) break;
    between();
    apply(p.data(), ap.data());  // the finished columns' too: their values go unused
    for (std::size_t j = 0; j < k; ++j) pap[j] = rz_next[j] = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < k; ++j) pap[j] += p[i * k + j] * ap[i * k + j];
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (!active[j]) continue;
      alpha[j] = rz[j] / pap[j];
      rr[j] = 0;
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        if (!active[j]) continue;
        const std::size_t at = i * k + j;
        x[at] += alpha[j] * p[at];
        r[at] -= alpha[j] * ap[at];
        z[at] = r[at] / precondition[i];
        rz_next[j] += r[at] * z[at];
        rr[j] += r[at] * r[at];
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (active[j]) beta[j] = rz_next[j] / rz[j];
    }
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        if (active[j]) p[i * k + j] = z[i * k + j] + beta[j] * p[i * k + j];
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      if (!active[j]) continue;
      rz[j] = rz_next[j];
      ++report[j].iterations;
    }
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (b_norm[j] != 0) report[j].residual = std::sqrt(rr[j]) / b_norm[j];
  }
}

// One right-hand side: apply(p, out) writes A p.
template <class Apply, class Between>
cg_report preconditioned_cg(Apply apply, const double* b, const double* precondition,
                            std::size_t n, double tol, int max_iter, double* x,
                            Between between) {
  cg_report report;
  preconditioned_cg_columns(apply, b, precondition, n, one_column, tol, max_iter, x, between,
                            &report);
  return report;
}

}  // namespace kitchen
