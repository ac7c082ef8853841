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
//
// Sums and updates over the n entries run through `parallel(n_units,
// unit_cost, body)`, which calls body(begin, end) on disjoint ranges
// covering [0, n_units) (parallel_chunks.h's chunk_runner in the glue): with
// millions of entries, each pass over the vectors costs about as much as a
// product. Every sum is taken over fixed blocks of cg_sum_block entries,
// then the blocks' sums are added in order, so the results do not depend on
// the number of threads.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "kitchen/huge_pages.hpp"

namespace kitchen {

// The width of one right-hand side, known when compiling.
using one_column_t = std::integral_constant<std::size_t, 1>;
constexpr one_column_t one_column{};

struct cg_report {
  int iterations;
  double residual;  // ||b - A x|| / ||b||
};

// The working vectors of preconditioned_cg_columns(). Kept between solves
// of one size (a path of lambdas), their pages are not faulted in again:
// fresh, the three vectors of a 7-class solve on 7.5 million bins took
// 0.1-2.5 s a call on these VMs.
struct cg_scratch {
  huge_page_vector<double> r, p, ap;
};

// Entries per block of a sum (see the top of the file).
constexpr std::size_t cg_sum_block = 4096;

// sums[s] = the sum over entries [0, n) of what body(begin, end, block_sums)
// adds to block_sums[s] (n_sums values, zero on entry) for the entries of one
// block, each entry holding k values; blocks may run on different threads
// and are added in order. partial is scratch.
template <class Parallel, class Body>
void cg_blocked_sums(Parallel& parallel, std::size_t n, std::size_t k, std::size_t n_sums,
                     Body body, std::vector<double>& partial, double* sums) {
  const std::size_t n_blocks = (n + cg_sum_block - 1) / cg_sum_block;
  partial.assign(n_blocks * n_sums, 0.0);
  double* part = partial.data();
  parallel(n_blocks, 4.0 * cg_sum_block * k, [&](std::size_t first, std::size_t last) {
    for (std::size_t block = first; block < last; ++block) {
      body(block * cg_sum_block, std::min(n, (block + 1) * cg_sum_block),
           part + block * n_sums);
    }
  });
  std::fill(sums, sums + n_sums, 0.0);
  for (std::size_t block = 0; block < n_blocks; ++block) {
    for (std::size_t s = 0; s < n_sums; ++s) sums[s] += part[block * n_sums + s];
  }
}

// Solves A X = B for k right-hand sides from the start in X, in place,
// each until ||b - A x|| <= tol ||b|| or max_iter iterations. Vectors are
// interleaved: entry i of right-hand side j at [i * k + j] (B, X and the
// products). apply(P, AP) writes A P for all k columns of P; precondition
// holds the diagonal preconditioner (positive, n values); between
// iterations, between() runs on the calling thread (interrupt checks).
// report receives k reports. `k` is a std::size_t, or a
// std::integral_constant for a width known when compiling: one right-hand
// side then runs loops without an inner one (25% faster at k = 1).
// parallel runs the passes over the entries (see the top of the file).
// scratch holds the working vectors (any sizes on entry).
template <class Apply, class Between, class Width, class Parallel>
void preconditioned_cg_columns(Apply apply, const double* b, const double* precondition,
                               std::size_t n, Width k, double tol, int max_iter, double* x,
                               Between between, cg_report* report, Parallel parallel,
                               cg_scratch& scratch) {
  // sums[j]: the first sum of column j, sums[k + j] the second
  std::vector<double> partial, sums(2 * k), b_norm(k), rz(k), rr(k), alpha(k), beta(k);
  cg_blocked_sums(parallel, n, k, k, [&](std::size_t begin, std::size_t end, double* s) {
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = 0; j < k; ++j) s[j] += b[i * k + j] * b[i * k + j];
    }
  }, partial, sums.data());
  std::vector<char> active(k);
  std::size_t n_active = 0;
  for (std::size_t j = 0; j < k; ++j) {
    b_norm[j] = std::sqrt(sums[j]);
    report[j] = {0, 0.0};
    if (b_norm[j] == 0) {
      for (std::size_t i = 0; i < n; ++i) x[i * k + j] = 0;
    } else {
      active[j] = 1;
      ++n_active;
    }
  }
  if (n_active == 0) return;
  // z = r / precondition is not stored: recomputed where needed, the same
  // quotient bit for bit
  scratch.r.resize(n * k);
  scratch.p.resize(n * k);
  scratch.ap.resize(n * k);
  double* r = scratch.r.data();
  double* p = scratch.p.data();
  double* ap = scratch.ap.data();
  apply(x, ap);
  cg_blocked_sums(parallel, n, k, 2 * k, [&](std::size_t begin, std::size_t end, double* s) {
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t j = 0; j < k; ++j) {
        const std::size_t at = i * k + j;
        if (!active[j]) {
          r[at] = p[at] = 0;  // not what an earlier solve left
          continue;
        }
        r[at] = b[at] - ap[at];
        p[at] = r[at] / precondition[i];
        s[j] += r[at] * p[at];
        s[k + j] += r[at] * r[at];
      }
    }
  }, partial, sums.data());
  for (std::size_t j = 0; j < k; ++j) {
    rz[j] = sums[j];
    rr[j] = sums[k + j];
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
    apply(p, ap);  // the finished columns' too: their values go unused
    cg_blocked_sums(parallel, n, k, k, [&](std::size_t begin, std::size_t end, double* s) {
      for (std::size_t i = begin; i < end; ++i) {
        for (std::size_t j = 0; j < k; ++j) s[j] += p[i * k + j] * ap[i * k + j];
      }
    }, partial, sums.data());
    for (std::size_t j = 0; j < k; ++j) {
      if (active[j]) alpha[j] = rz[j] / sums[j];
    }
    // sums: r'z and r'r after the step
    cg_blocked_sums(parallel, n, k, 2 * k, [&](std::size_t begin, std::size_t end, double* s) {
      for (std::size_t i = begin; i < end; ++i) {
        for (std::size_t j = 0; j < k; ++j) {
          if (!active[j]) continue;
          const std::size_t at = i * k + j;
          x[at] += alpha[j] * p[at];
          r[at] -= alpha[j] * ap[at];
          s[j] += r[at] * (r[at] / precondition[i]);
          s[k + j] += r[at] * r[at];
        }
      }
    }, partial, sums.data());
    for (std::size_t j = 0; j < k; ++j) {
      if (!active[j]) continue;
      beta[j] = sums[j] / rz[j];
      rz[j] = sums[j];
      rr[j] = sums[k + j];
      ++report[j].iterations;
    }
    parallel(n, 3.0 * k, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        for (std::size_t j = 0; j < k; ++j) {
          const std::size_t at = i * k + j;
          if (active[j]) p[at] = r[at] / precondition[i] + beta[j] * p[at];
        }
      }
    });
  }
  for (std::size_t j = 0; j < k; ++j) {
    if (b_norm[j] != 0) report[j].residual = std::sqrt(rr[j]) / b_norm[j];
  }
}

// One right-hand side: apply(p, out) writes A p.
template <class Apply, class Between, class Parallel>
cg_report preconditioned_cg(Apply apply, const double* b, const double* precondition,
                            std::size_t n, double tol, int max_iter, double* x,
                            Between between, Parallel parallel) {
  cg_report report;
  cg_scratch scratch;
  preconditioned_cg_columns(apply, b, precondition, n, one_column, tol, max_iter, x, between,
                            &report, parallel, scratch);
  return report;
}

}  // namespace kitchen
