// Glue for nystrom()'s K_CC^(-1/2) (kitchen/inverse_root.hpp): kitchen's
// threaded tridiagonal reduction, LAPACK's dstemr for the kept eigenpairs of
// T (one call on the main thread), the reflectors applied to them over
// threads, and S S' (S = U_r diag(l^(-1/4))) on kitchen's SIMD products (Eigen without SIMD).
// R's eigen() spends its time in LAPACK's dsytrd and dormtr on R's BLAS:
// with the reference BLAS, 601 s at n = 4000 on a loaded 2-core machine.
// Workers run pure C++ on buffers allocated beforehand; parallel_for_chunks
// checks for interrupts between chunks on the main thread.
#include "blas_gemm.h"  // first: sets up R's Fortran string-length arguments
#include <R_ext/Lapack.h>
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <vector>

#include "kitchen/eigen.hpp"
#include "kitchen/gemm_simd.hpp"
#include "kitchen/inverse_root.hpp"
#include "kitchen/tridiagonal.hpp"
#include "packed_product_threads.h"
#include "parallel_chunks.h"
#include "simd_name.h"

// MRRR for a symmetric tridiagonal matrix; in every LAPACK since 3.1 (R's
// own builds it for dsyevr) but not declared in R_ext/Lapack.h.
extern "C" void F77_NAME(dstemr)(const char* jobz, const char* range, const int* n, double* d,
                                 double* e, const double* vl, const double* vu, const int* il,
                                 const int* iu, int* m, double* w, double* z, const int* ldz,
                                 const int* nzc, int* isuppz, int* tryrac, double* work,
                                 const int* lwork, int* iwork, const int* liwork,
                                 int* info FCLEN FCLEN);

namespace {

// The reduction's ranges over threads. parallel_for_chunks checks for
// interrupts between chunks: the trailing update after each panel of 32
// columns comes in many chunks, so the reduction stops promptly
// (test-inverse-root.R).
struct root_parallel {
  int n_threads;
  template <class Body>
  void operator()(std::size_t n_units, double unit_cost, Body body) const {
    kitchen_glue::parallel_for_chunks(n_units, unit_cost, n_threads, body);
  }
};

struct root_entries {
  const double* k;
  std::size_t n;
  double operator()(std::size_t r, std::size_t c) const { return k[r + c * n]; }
};

// The eigenpairs of the tridiagonal (d, e) with eigenvalues in (vl, vu]:
// values into w, vectors into z (n x count); returns the count.
int tridiagonal_eigenpairs(std::vector<double> d, std::vector<double> e, double vl, double vu,
                           std::vector<double>& w, std::vector<double>& z) {
  const int n = static_cast<int>(d.size());
  e.resize(n);  // dstemr uses e[n - 1] as workspace
  const char jobz = 'V', range = 'V';
  const int unused = 0;
  int found = 0, info = 0, tryrac = 0, nzc = -1, lwork = -1, liwork = -1, iwork_size = 0;
  double work_size = 0, z_size = 0;
  std::vector<int> isuppz(2 * static_cast<std::size_t>(n));
  w.assign(n, 0.0);
  F77_CALL(dstemr)(&jobz, &range, &n, d.data(), e.data(), &vl, &vu, &unused, &unused, &found,
                   w.data(), &z_size, &n, &nzc, isuppz.data(), &tryrac, &work_size, &lwork,
                   &iwork_size, &liwork, &info FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dstemr failed (info = %d).", info);
  nzc = std::max(1, static_cast<int>(z_size));
  lwork = std::max(1, static_cast<int>(work_size));
  liwork = std::max(1, iwork_size);
  z.assign(static_cast<std::size_t>(n) * nzc, 0.0);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  F77_CALL(dstemr)(&jobz, &range, &n, d.data(), e.data(), &vl, &vu, &unused, &unused, &found,
                   w.data(), z.data(), &n, &nzc, isuppz.data(), &tryrac, work.data(), &lwork,
                   iwork.data(), &liwork, &info FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dstemr failed (info = %d).", info);
  return found;
}

// s s' (n x n) for s n x r (column-major), given st = s' (r x n); st is
// freed before the result is allocated (on the SIMD path once packed).
Rcpp::NumericMatrix outer_product(const double* s, std::vector<double>& st, std::size_t n,
                                  std::size_t r, kitchen::simd_level level, int n_threads) {
  std::atomic<bool> failed(false);
  if (level != kitchen::simd_level::scalar) {
    kitchen::gemm_packed_rhs rhs(r, n, level);
    kitchen_glue::pack_over_threads(rhs, st.data(), r, level, n_threads);
    std::vector<double>().swap(st);
    Rcpp::NumericMatrix out(n, n);
    double* res = out.begin();
    const double unit_cost = kitchen::gemm_block_rows * kitchen::gemm_group_strips *
                             kitchen::gram_strip_width(level) * 2.0 * r;
    if (!kitchen_glue::packed_product_over_threads(s, n, r, rhs, n, level, res, n, unit_cost,
                                                   n_threads, [](const kitchen::gemm_unit&) {})) {
      Rcpp::stop("Not enough memory for the product S S'.");
    }
    return out;
  }
  std::vector<double>().swap(st);
  Rcpp::NumericMatrix out(n, n);
  double* res = out.begin();
  using matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  const std::size_t group = 64;
  kitchen_glue::parallel_for_chunks((n + group - 1) / group, 2.0 * n * r * group, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    try {
      Eigen::Map<const matrix> sm(s, n, r);
      Eigen::Map<matrix> om(res, n, n);
      const std::size_t j0 = begin * group, j1 = std::min(n, end * group);
      om.middleCols(j0, j1 - j0).noalias() = sm * sm.middleRows(j0, j1 - j0).transpose();
    } catch (...) {
      failed.store(true);
    }
  });
  if (failed.load()) Rcpp::stop("Not enough memory for the product S S'.");
  return out;
}

}  // namespace

// k: a symmetric positive semi-definite n x n matrix (its upper triangle is
// read). Returns list(matrix = K^(+1/2), rank = r), kitchen/inverse_root.hpp.
// [[Rcpp::export(rng = false)]]
Rcpp::List inverse_square_root_cpp(Rcpp::NumericMatrix k, int n_threads, SEXP simd) {
  const std::size_t n = k.nrow();
  if (static_cast<std::size_t>(k.ncol()) != n) Rcpp::stop("k must be square.");
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  root_parallel parallel{n_threads};
  std::unique_ptr<kitchen::tridiagonal_reduction> form(new kitchen::tridiagonal_reduction(n, level));
  form->reduce_from(parallel, root_entries{k.begin(), n});

  // The largest eigenvalue, for the cutoff: all of them without vectors
  // (dsterf, O(n^2)), on copies.
  std::vector<double> d = form->diagonal(), e = form->off_diagonal();
  const int ni = static_cast<int>(n);
  int info = 0;
  if (n > 0) F77_CALL(dsterf)(&ni, d.data(), e.data(), &info);
  if (info != 0) Rcpp::stop("LAPACK dsterf failed (info = %d).", info);
  const double largest = n > 0 ? *std::max_element(d.begin(), d.end()) : 0.0;
  const double cutoff = kitchen::inverse_root_cutoff(n, largest);

  std::size_t r = 0;
  std::vector<double> w, z;
  if (largest > 0) {
    r = tridiagonal_eigenpairs(form->diagonal(), form->off_diagonal(), cutoff, 2.0 * largest, w, z);
  }
  // At most four n x n matrices are held at once (for r = n): k, the
  // reduction's copy and the eigenvectors; then k, the eigenvectors, their
  // transpose and its packed copy; then k, the eigenvectors, the packed copy
  // and the result.
  if (r == 0) {
    return Rcpp::List::create(Rcpp::Named("matrix") = Rcpp::NumericMatrix(n, n),
                              Rcpp::Named("rank") = 0);
  }
  std::vector<double> zt;
  {
    // U = Q V, a group of columns per pass over the reflectors.
    const std::size_t groups = (r + kitchen::inverse_root_group - 1) / kitchen::inverse_root_group;
    kitchen_glue::parallel_for_chunks(groups, form->apply_cost() * kitchen::inverse_root_group,
                                      n_threads, [&](std::size_t begin, std::size_t end) {
      for (std::size_t g = begin; g < end; ++g) {
        form->apply(false, z.data(), n, g * kitchen::inverse_root_group,
                    std::min(r, (g + 1) * kitchen::inverse_root_group));
      }
    });
    form.reset();
    z.resize(n * r);
    zt.resize(r * n);
    kitchen_glue::parallel_for_chunks(groups, 3.0 * n * kitchen::inverse_root_group, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t g = begin; g < end; ++g) {
        kitchen::inverse_root_scale(z.data(), n, w.data(), r, g * kitchen::inverse_root_group,
                                    std::min(r, (g + 1) * kitchen::inverse_root_group), zt.data());
      }
    });
  }
  return Rcpp::List::create(Rcpp::Named("matrix") = outer_product(z.data(), zt, n, r, level, n_threads),
                            Rcpp::Named("rank") = static_cast<int>(r));
}
