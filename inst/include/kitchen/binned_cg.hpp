// Preconditioned conjugate gradients for a symmetric positive definite
// system A x = b given only as a product, on raw memory. The ridge solver
// of random binning fits (R/krr_binned.R) runs it on the centred, row
// weighted system (Zc' W Zc + lambda I) w = Zc' W y through
// binned_products.hpp; in C++ because each iteration's vector updates over
// millions of columns cost as much again as the products when done in R.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace kitchen {

struct cg_report {
  int iterations;
  double residual;  // ||b - A x|| / ||b||
};

// Solves from the start in x, in place, until ||b - A x|| <= tol ||b|| or
// max_iter iterations. apply(p, out) writes A p; precondition holds the
// diagonal preconditioner (positive); between iterations, between() runs on
// the calling thread (interrupt checks).
template <class Apply, class Between>
cg_report preconditioned_cg(Apply apply, const double* b, const double* precondition,
                            std::size_t n, double tol, int max_iter, double* x,
                            Between between) {
  double b_norm = 0;
  for (std::size_t k = 0; k < n; ++k) b_norm += b[k] * b[k];
  b_norm = std::sqrt(b_norm);
  if (b_norm == 0) {
    for (std::size_t k = 0; k < n; ++k) x[k] = 0;
    return {0, 0.0};
  }
  std::vector<double> r(n), z(n), p(n), ap(n);
  apply(x, ap.data());
  double rz = 0, rr = 0;
  for (std::size_t k = 0; k < n; ++k) {
    r[k] = b[k] - ap[k];
    z[k] = r[k] / precondition[k];
    p[k] = z[k];
    rz += r[k] * z[k];
    rr += r[k] * r[k];
  }
  int iterations = 0;
  while (std::sqrt(rr) > tol * b_norm && iterations < max_iter) {
    between();
    apply(p.data(), ap.data());
    double pap = 0;
    for (std::size_t k = 0; k < n; ++k) pap += p[k] * ap[k];
    const double alpha = rz / pap;
    double rz_next = 0;
    rr = 0;
    for (std::size_t k = 0; k < n; ++k) {
      x[k] += alpha * p[k];
      r[k] -= alpha * ap[k];
      z[k] = r[k] / precondition[k];
      rz_next += r[k] * z[k];
      rr += r[k] * r[k];
    }
    const double beta = rz_next / rz;
    for (std::size_t k = 0; k < n; ++k) p[k] = z[k] + beta * p[k];
    rz = rz_next;
    ++iterations;
  }
  return {iterations, std::sqrt(rr) / b_norm};
}

}  // namespace kitchen
