// The eigenpairs of a symmetric matrix above a cutoff, for nystrom()'s
// K_CC^(-1/2) (src/inverse_root.cpp) and the dual paths' n x n Gram
// matrices (src/symmetric_eigen.cpp): kitchen's threaded tridiagonal
// reduction (tridiagonal.hpp), LAPACK's MRRR for the kept eigenpairs of T
// (dstemr: O(n r) work for r of them, against the O(n^3) QR sweeps of a full
// eigensolver; one call on the main thread), and the reduction's reflectors
// applied to them over threads. R's eigen() spends its time in LAPACK's
// dsytrd and dormtr on R's BLAS (with the reference BLAS, 601 s at n = 4000
// on a loaded 2-core machine) and cannot be interrupted; here
// parallel_for_chunks checks for interrupts between chunks (the trailing
// update after each panel of 32 columns comes in many chunks).
// Include after blas_gemm.h (R's Fortran string-length arguments).
#pragma once

#include <R_ext/Lapack.h>
#include <Rcpp.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include "kitchen/inverse_root.hpp"
#include "kitchen/tridiagonal.hpp"
#include "parallel_chunks.h"

// MRRR for a symmetric tridiagonal matrix; in every LAPACK since 3.1 (R's
// own builds it for dsyevr) but not declared in R_ext/Lapack.h.
extern "C" void F77_NAME(dstemr)(const char* jobz, const char* range, const int* n, double* d,
                                 double* e, const double* vl, const double* vu, const int* il,
                                 const int* iu, int* m, double* w, double* z, const int* ldz,
                                 const int* nzc, int* isuppz, int* tryrac, double* work,
                                 const int* lwork, int* iwork, const int* liwork,
                                 int* info FCLEN FCLEN);

namespace kitchen_glue {

// The eigenpairs il..iu (1-based, in ascending order of eigenvalue) of the
// tridiagonal (d, e): values into w, vectors into z (n x (iu - il + 1)).
// By index, not by an interval of values: with an interval whose lower end
// was eps^2 times the largest eigenvalue the heap was corrupted (likely
// eigenvalues at rounding level next to that end, counted one way by the
// workspace query, which sizes z, and another by the solve).
inline void tridiagonal_eigenpairs(std::vector<double> d, std::vector<double> e, int il, int iu,
                                   std::vector<double>& w, std::vector<double>& z) {
  const int n = static_cast<int>(d.size());
  e.resize(n);  // dstemr uses e[n - 1] as workspace
  const char jobz = 'V', range = 'I';
  const double unused = 0;
  const int count = iu - il + 1;
  int found = 0, info = 0, tryrac = 0, lwork = -1, liwork = -1, iwork_size = 0;
  double work_size = 0, z_size = 0;
  std::vector<int> isuppz(2 * static_cast<std::size_t>(n));
  w.assign(n, 0.0);
  F77_CALL(dstemr)(&jobz, &range, &n, d.data(), e.data(), &unused, &unused, &il, &iu, &found,
                   w.data(), &z_size, &n, &count, isuppz.data(), &tryrac, &work_size, &lwork,
                   &iwork_size, &liwork, &info FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dstemr failed (info = %d).", info);
  lwork = std::max(1, static_cast<int>(work_size));
  liwork = std::max(1, iwork_size);
  z.assign(static_cast<std::size_t>(n) * count, 0.0);
  std::vector<double> work(lwork);
  std::vector<int> iwork(liwork);
  F77_CALL(dstemr)(&jobz, &range, &n, d.data(), e.data(), &unused, &unused, &il, &iu, &found,
                   w.data(), z.data(), &n, &count, isuppz.data(), &tryrac, work.data(), &lwork,
                   iwork.data(), &liwork, &info FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dstemr failed (info = %d).", info);
  if (found != count) Rcpp::stop("LAPACK dstemr found %d eigenpairs of %d.", found, count);
}

// The eigenpairs of the symmetric n x n matrix k (upper triangle read) whose
// eigenvalues exceed relative_cutoff times the largest (none when the largest
// is not positive): values into w (ascending, r of them), unit eigenvectors
// into z (n x r, column-major; z.size() is n r); returns r. The reduction's
// working copy is freed on return.
inline std::size_t kept_eigenpairs(const double* k, std::size_t n, double relative_cutoff,
                                   kitchen::simd_level level, int n_threads,
                                   std::vector<double>& w, std::vector<double>& z) {
  w.clear();
  z.clear();
  if (n == 0) return 0;
  chunk_runner parallel{n_threads};
  kitchen::tridiagonal_reduction form(n, level);
  form.reduce_from(parallel, kitchen::column_major_entries{k, n});

  // The largest eigenvalue, for the cutoff: all of them without vectors
  // (dsterf, O(n^2)), on copies.
  std::vector<double> d = form.diagonal(), e = form.off_diagonal();
  const int ni = static_cast<int>(n);
  int info = 0;
  F77_CALL(dsterf)(&ni, d.data(), e.data(), &info);
  if (info != 0) Rcpp::stop("LAPACK dsterf failed (info = %d).", info);
  // dsterf sorts them in ascending order.
  const double largest = d.back();
  if (!(largest > 0)) return 0;
  const double cutoff = relative_cutoff * largest;
  const std::size_t counted = d.end() - std::upper_bound(d.begin(), d.end(), cutoff);
  if (counted == 0) return 0;
  tridiagonal_eigenpairs(form.diagonal(), form.off_diagonal(), static_cast<int>(n - counted + 1),
                         static_cast<int>(n), w, z);
  // MRRR's values near the cutoff can differ from dsterf's in rounding:
  // those at or below it (ascending, so first) are dropped.
  const std::size_t low = std::upper_bound(w.begin(), w.begin() + counted, cutoff) - w.begin();
  const std::size_t r = counted - low;
  w.erase(w.begin(), w.begin() + low);
  w.resize(r);
  z.erase(z.begin(), z.begin() + low * n);
  // U = Q V, a group of columns per pass over the reflectors.
  const std::size_t group = kitchen::inverse_root_group;
  const std::size_t groups = (r + group - 1) / group;
  parallel_for_chunks(groups, form.apply_cost() * group, n_threads,
                      [&](std::size_t begin, std::size_t end) {
    for (std::size_t g = begin; g < end; ++g) {
      form.apply(false, z.data(), n, g * group, std::min(r, (g + 1) * group));
    }
  });
  z.resize(n * r);
  return r;
}

}  // namespace kitchen_glue
