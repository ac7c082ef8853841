// Glue for krr_fit()'s lambda path: the centred Gram matrix is reduced to
// tridiagonal form, by kitchen's own blocked reduction (tridiagonal.hpp, on
// threads and SIMD kernels) or by LAPACK's dsytrd (R's own, or the optimised
// one R is linked to); the core scores every lambda from it; the chosen
// lambda's coefficients are mapped back with the same Householder
// reflectors. Both paths (a CV fold's coefficients for every lambda, the
// fit's GCV scores) can also come from a band form (band_reduction.hpp),
// faster for large matrices.
#include "blas_gemm.h"  // first: sets up R's Fortran string-length arguments
#include <R_ext/Lapack.h>
#include <Rcpp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kitchen/band_reduction.hpp"
#include "kitchen/fold_algebra.hpp"
#include "kitchen/lowest_score.hpp"
#include "kitchen/reflector_blocks.hpp"
#include "kitchen/ridge_path.hpp"
#include "kitchen/tridiagonal.hpp"
#include "parallel_chunks.h"
#include "simd_name.h"

namespace {

// Applies Q (trans 'N') or Q' (trans 'T') of dsytrd's reflectors to c
// (dim x k), in place.
void lapack_apply_q(const char trans, const std::vector<double>& reflectors, int dim,
                    const std::vector<double>& tau, double* c, int k) {
  const char side = 'L', upper = 'U';
  int info = 0, lwork = -1;
  double size = 0.0;
  F77_CALL(dormtr)(&side, &upper, &trans, &dim, &k, reflectors.data(), &dim, tau.data(), c, &dim,
                   &size, &lwork, &info FCONE FCONE FCONE);
  lwork = std::max(1, static_cast<int>(size));
  std::vector<double> work(lwork);
  F77_CALL(dormtr)(&side, &upper, &trans, &dim, &k, reflectors.data(), &dim, tau.data(), c, &dim,
                   work.data(), &lwork, &info FCONE FCONE FCONE);
  if (info != 0) Rcpp::stop("LAPACK dormtr failed (info = %d).", info);
}

// A square R matrix's entries as the reductions read them.
kitchen::column_major_entries entries_of(const Rcpp::NumericMatrix& gram) {
  return {gram.begin(), static_cast<std::size_t>(gram.nrow())};
}

// The tridiagonal form G = Q T Q' of a symmetric matrix (upper triangle
// read): T's diagonal d and off-diagonal e, and Q as Householder
// reflectors, from LAPACK (use_lapack) or from kitchen's reduction.
struct tridiagonal_form {
  int dim, n_threads;
  std::vector<double> d, e;
  // LAPACK's dsytrd output.
  std::vector<double> reflectors, tau;
  // kitchen's, and its reflectors by blocks once use_blocks() is called.
  std::unique_ptr<kitchen::tridiagonal_reduction> own;
#if KITCHEN_X86_SIMD
  std::unique_ptr<kitchen::reflector_blocks> blocks;
#endif

  tridiagonal_form(const Rcpp::NumericMatrix& gram, bool use_lapack, int n_threads_, SEXP simd,
                   std::size_t slice_entries = 0)
      : tridiagonal_form(gram.nrow(), entries_of(gram),
                         use_lapack, n_threads_, simd, slice_entries) {}

  // The form of the dim x dim symmetric matrix whose upper triangle
  // entry(r, c) (r <= c) gives.
  template <class Entry>
  tridiagonal_form(int dim_, Entry entry, bool use_lapack, int n_threads_, SEXP simd,
                   std::size_t slice_entries = 0)
      : dim(dim_), n_threads(n_threads_), d(dim), e(std::max(dim - 1, 1)) {
    if (use_lapack) {
      lapack_reduce(entry);
      return;
    }
    own.reset(new kitchen::tridiagonal_reduction(
        dim, kitchen_glue::simd_from_name(simd)));
    if (slice_entries > 0) own->symv_slice_entries = slice_entries;
    kitchen_glue::chunk_runner parallel{n_threads};
    own->reduce_from(parallel, entry);
    std::copy(own->diagonal().begin(), own->diagonal().end(), d.begin());
    std::copy(own->off_diagonal().begin(), own->off_diagonal().end(), e.begin());
  }

  // dsytrd reads (and overwrites) the upper triangle only.
  template <class Entry>
  void lapack_reduce(Entry& entry) {
    const std::size_t n = dim;
    reflectors.assign(n * n, 0.0);
    for (std::size_t c = 0; c < n; ++c) {
      for (std::size_t r = 0; r <= c; ++r) reflectors[r + c * n] = entry(r, c);
    }
    tau.assign(std::max(dim - 1, 1), 0.0);
    const char upper = 'U';
    int info = 0, lwork = -1;
    double size = 0.0;
    F77_CALL(dsytrd)(&upper, &dim, reflectors.data(), &dim, d.data(), e.data(), tau.data(),
                     &size, &lwork, &info FCONE);
    lwork = std::max(1, static_cast<int>(size));
    std::vector<double> work(lwork);
    F77_CALL(dsytrd)(&upper, &dim, reflectors.data(), &dim, d.data(), e.data(), tau.data(),
                     work.data(), &lwork, &info FCONE);
    if (info != 0) Rcpp::stop("LAPACK dsytrd failed (info = %d).", info);
  }

  // From here on, apply Q by blocks of reflectors (reflector_blocks.hpp:
  // matrix products) rather than one reflector at a time, where kitchen
  // reduced and the SIMD level has the kernels; for the many columns of a
  // lambda path. Rounds differently from the reflector-at-a-time product.
  void use_blocks() {
#if KITCHEN_X86_SIMD
    if (!own || dim < 2 || !kitchen::reflector_blocks::available(own->level())) return;
    kitchen_glue::chunk_runner parallel{n_threads};
    blocks.reset(new kitchen::reflector_blocks(parallel, own->reflectors(), dim,
                                               own->tau().data(), dim - 1, own->level()));
#endif
  }

  // Q' c (trans 'T') or Q c (trans 'N') for c dim x k, in place.
  void apply(const char trans, double* c, int k) const {
    if (dim == 0 || k == 0) return;
    if (!own) {
      lapack_apply_q(trans, reflectors, dim, tau, c, k);
      return;
    }
#if KITCHEN_X86_SIMD
    if (blocks) {
      // interrupts checked between blocks of reflectors (a block has few
      // units when k is small)
      std::vector<double> workspace(blocks->workspace_size(k));
      kitchen_glue::chunk_runner parallel{n_threads};
      for (std::size_t s = 0; s < blocks->n_blocks(); ++s) {
        blocks->apply_step(parallel, s, trans == 'T', c, dim, k, workspace.data());
        Rcpp::checkUserInterrupt();
      }
      return;
    }
#endif
    kitchen_glue::parallel_for_chunks(static_cast<std::size_t>(k), own->apply_cost(), n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      own->apply(trans == 'T', c, dim, begin, end);
    });
  }

  // w = (G + lambda I)^-1 zy for each of the n_lambdas lambdas, from
  // b = Q' zy (dim x k): dim x (k * n_lambdas), lambda by lambda (k columns
  // each), NA columns where G + lambda I is singular.
  void coefficients(const double* b, int k, const double* lambdas, int n_lambdas,
                    double* w) const {
    std::vector<double> pivot;
    for (int l = 0; l < n_lambdas; ++l) {
      for (int j = 0; j < k; ++j) {
        double* column = w + (static_cast<std::size_t>(l) * k + j) * dim;
        if (!kitchen::tridiagonal_solve(d.data(), e.data(), dim, lambdas[l], b + j * dim, column,
                                        pivot)) {
          std::fill(column, column + dim, NA_REAL);
        }
      }
    }
    apply('N', w, k * n_lambdas);  // Q u for all columns at once
  }
};

#if KITCHEN_X86_SIMD
// G = Q B Q' with B banded (band_reduction.hpp), for the lambda paths: a
// banded Cholesky factor per lambda instead of a tridiagonal solve, and
// GCV's degrees of freedom from the band of its inverse instead of the
// eigenvalues. Needs the AVX2 / AVX-512 kernels.
struct band_form {
  int dim, n_threads;
  std::unique_ptr<kitchen::band_reduction> own;
  std::unique_ptr<kitchen::reflector_blocks> blocks;

  template <class Entry>
  band_form(int dim_, Entry entry, int n_threads_, kitchen::simd_level level)
      : dim(dim_), n_threads(n_threads_), own(new kitchen::band_reduction(dim_, level)) {
    kitchen_glue::chunk_runner parallel{n_threads};
    own->reduce_from(parallel, entry);
    if (!own->tau().empty()) {
      blocks.reset(new kitchen::reflector_blocks(own->reflectors(), dim, own->tau().data(),
                                                 own->tau().size(), level, kitchen::band_width,
                                                 own->block_factors()));
    }
  }

  void use_blocks() {}  // Q is always applied by blocks here

  // Q' c (trans 'T') or Q c (trans 'N') for c dim x k, in place.
  void apply(const char trans, double* c, int k) const {
    if (!blocks || k == 0) return;
    std::vector<double> workspace(blocks->workspace_size(k));
    kitchen_glue::chunk_runner parallel{n_threads};
    for (std::size_t s = 0; s < blocks->n_blocks(); ++s) {
      blocks->apply_step(parallel, s, trans == 'T', c, dim, k, workspace.data());
      Rcpp::checkUserInterrupt();
    }
  }

  // body(q, l, work) for each of n_lambdas lambdas, with l the factor of
  // B + lambdas[q] I (band_cholesky(); body(q, nullptr, work) where it
  // fails). The lambdas go round-robin to one set per thread, each set with
  // its own factor and `work` doubles of workspace: results do not depend
  // on the threads.
  template <class Body>
  void factored(const double* lambdas, int n_lambdas, std::size_t work, Body body) const {
    const std::size_t n = dim, ld = kitchen::band_width + 1;
    const std::size_t sets = std::min<std::size_t>(n_lambdas, std::max(n_threads, 1));
    const std::size_t each = ld * n + work;
    std::vector<double> buffers(sets * each);
    const double* band = own->band().data();
    kitchen_glue::parallel_for_chunks(sets, 2.0 * n_lambdas / sets * ld * ld * n, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t g = begin; g < end; ++g) {
        double* l = buffers.data() + g * each;
        for (std::size_t q = g; q < static_cast<std::size_t>(n_lambdas); q += sets) {
          const bool ok = kitchen::band_cholesky(band, n, lambdas[q], l);
          body(q, ok ? l : nullptr, l + ld * n);
        }
      }
    });
  }

  // As tridiagonal_form::coefficients(): NA columns where B + lambda I is
  // not positive definite.
  void coefficients(const double* b, int k, const double* lambdas, int n_lambdas,
                    double* w) const {
    const std::size_t n = dim;
    factored(lambdas, n_lambdas, 0, [&](std::size_t q, const double* l, double*) {
      double* out = w + q * k * n;
      if (!l) {
        std::fill(out, out + k * n, NA_REAL);
        return;
      }
      std::copy(b, b + k * n, out);
      for (int j = 0; j < k; ++j) kitchen::band_cholesky_solve(l, n, out + j * n);
    });
    apply('N', w, k * n_lambdas);
  }

  // As kitchen::ridge_gcv_path() from b = Q' zy: with u = (B + lambda I)^-1
  // b, RSS = y'y - b'u - lambda u'u, and df = 1 + D - lambda trace((B +
  // lambda I)^-1) from the inverse's band (band_inverse_trace()); NaN for
  // both where B + lambda I is not positive definite.
  void gcv_path(const double* b, int k, double yy_total, double n_rows, const double* lambdas,
                int n_lambdas, double* gcv, double* df) const {
    const std::size_t n = dim, ld = kitchen::band_width + 1;
    factored(lambdas, n_lambdas, ld * n + n, [&](std::size_t q, const double* l, double* work) {
      if (!l) {
        gcv[q] = df[q] = R_NaN;
        return;
      }
      const double lambda = lambdas[q];
      const double trace = 1.0 + n - lambda * kitchen::band_inverse_trace(l, n, work);
      double* u = work + ld * n;
      double rss = yy_total;
      for (int j = 0; j < k; ++j) {
        const double* bj = b + j * n;
        std::copy(bj, bj + n, u);
        kitchen::band_cholesky_solve(l, n, u);
        rss -= kitchen::rss_decrease(bj, u, n, lambda);
      }
      df[q] = trace;
      gcv[q] = kitchen::gcv_score(n_rows, rss, trace, n);
    });
  }
};
#endif

}  // namespace

// gram: centred Z'Z (dim x dim, upper triangle read); zy: centred Z'y
// (dim x k); yy: total centred y'y; n: rows; lambdas: candidates (> 0).
// Returns list(best = 0) when no candidate makes G + lambda I positive
// definite (GCV only), else list(gcv, df, coefficients, best) with the coefficients (dim x k)
// of candidate `chosen` (1-based, as chosen by cross-validation), or of the
// one with the lowest GCV score when `chosen` is 0. use_lapack: reduce with
// LAPACK's dsytrd instead of kitchen's reduction (on n_threads threads,
// SIMD capped at `simd`, by name); band: from the band form instead, where
// the SIMD level has its kernels (df then NaN too where a candidate leaves
// G + lambda I indefinite). The results agree to rounding.
// [[Rcpp::export(rng = false)]]
Rcpp::List ridge_gcv_path_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix zy, double yy,
                              double n, Rcpp::NumericVector lambdas, int chosen, bool use_lapack,
                              int n_threads, SEXP simd, bool band = false) {
  const int dim = gram.nrow(), k = zy.ncol();
  const std::size_t n_lambdas = lambdas.size();
  if (chosen < 0 || static_cast<std::size_t>(chosen) > n_lambdas) {
    Rcpp::stop("chosen must be 0 or the position of a candidate.");
  }
  Rcpp::NumericVector gcv(n_lambdas), df(n_lambdas);
  std::vector<double> b(zy.begin(), zy.end());
  // The scores, then the coefficients of the chosen candidate, from either form.
  const auto scored = [&](const auto& form) {
    std::size_t best = kitchen::lowest_score(gcv.begin(), n_lambdas);
    // No candidate makes G + lambda I positive definite: best = 0, for R to
    // name lambda.
    if (best == n_lambdas && chosen == 0) return Rcpp::List::create(Rcpp::Named("best") = 0);
    if (chosen > 0) best = static_cast<std::size_t>(chosen - 1);
    Rcpp::NumericMatrix w(dim, k);
    form.coefficients(b.data(), k, &lambdas[best], 1, w.begin());
    return Rcpp::List::create(Rcpp::Named("gcv") = gcv, Rcpp::Named("df") = df,
                              Rcpp::Named("coefficients") = w, Rcpp::Named("best") = best + 1);
  };
#if KITCHEN_X86_SIMD
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (band && !use_lapack && kitchen::band_reduction::available(level) &&
      static_cast<std::size_t>(dim) > kitchen::band_width) {
    const band_form form(dim, entries_of(gram),
                         n_threads, level);
    form.apply('T', b.data(), k);
    form.gcv_path(b.data(), k, yy, n, lambdas.begin(), n_lambdas, gcv.begin(), df.begin());
    return scored(form);
  }
#endif
  const tridiagonal_form form(gram, use_lapack, n_threads, simd);
  form.apply('T', b.data(), k);
  std::vector<double> eigenvalues(form.d), off(form.e);
  int info = 0;
  F77_CALL(dsterf)(&form.dim, eigenvalues.data(), off.data(), &info);
  if (info != 0) Rcpp::stop("LAPACK dsterf failed (info = %d).", info);
  kitchen::ridge_gcv_path(form.d.data(), form.e.data(), eigenvalues.data(), dim, b.data(), k, yy,
                          n, lambdas.begin(), n_lambdas, gcv.begin(), df.begin());
  return scored(form);
}

// best_candidate() (R/best_candidate.R): the 1-based position of the lowest
// score, or 0 when every score is NaN.
// [[Rcpp::export(rng = false)]]
int lowest_score_cpp(Rcpp::NumericVector scores) {
  const std::size_t n = scores.size();
  const std::size_t best = kitchen::lowest_score(scores.begin(), n);
  return best == n ? 0 : static_cast<int>(best + 1);
}

namespace {

// The ridge coefficients for every lambda from the form of G: a dim x
// (k * n_lambdas) matrix, lambda by lambda (k columns each). Q is applied
// by blocks of reflectors (the fit's own coefficients, ridge_gcv_path_cpp(),
// keep the reflector-at-a-time product: k columns cost little there).
template <class Form>
Rcpp::NumericMatrix path_coefficients(Form&& form, Rcpp::NumericMatrix zy,
                                      Rcpp::NumericVector lambdas) {
  const int k = zy.ncol(), n_lambdas = lambdas.size();
  form.use_blocks();
  std::vector<double> b(zy.begin(), zy.end());
  form.apply('T', b.data(), k);
  Rcpp::NumericMatrix w(form.dim, k * n_lambdas);
  form.coefficients(b.data(), k, lambdas.begin(), n_lambdas, w.begin());
  return w;
}

// The same from the band form when `band` asks for it and the SIMD level
// has its kernels (and the matrix is wider than the band), else from the
// tridiagonal form.
template <class Entry>
Rcpp::NumericMatrix lambda_path(int dim, Entry entry, Rcpp::NumericMatrix zy,
                                Rcpp::NumericVector lambdas, bool use_lapack, bool band,
                                int n_threads, SEXP simd) {
#if KITCHEN_X86_SIMD
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (band && !use_lapack && kitchen::band_reduction::available(level) &&
      static_cast<std::size_t>(dim) > kitchen::band_width) {
    return path_coefficients(band_form(dim, entry, n_threads, level), zy, lambdas);
  }
#else
  (void)band;
#endif
  return path_coefficients(tridiagonal_form(dim, entry, use_lapack, n_threads, simd), zy,
                           lambdas);
}

}  // namespace

// The ridge coefficients (G + lambda I)^-1 zy for every lambda, from one
// tridiagonal reduction (or band reduction: `band`): a dim x (k *
// n_lambdas) matrix, lambda by lambda (k columns each); NaN columns where
// G + lambda I is singular (band: not positive definite).
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ridge_path_coefficients_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix zy,
                                                Rcpp::NumericVector lambdas, bool use_lapack,
                                                int n_threads, SEXP simd, bool band = false) {
  return lambda_path(gram.nrow(), entries_of(gram), zy, lambdas, use_lapack, band,
                     n_threads, simd);
}

// The same for G = (total - fold) - n zbar zbar', a K-fold CV fold's
// centred training Gram matrix, made entry by entry as the reduction reads
// it (fold_algebra.hpp): one call per fold, with no copy of G in memory
// (1.15 GB at D = 12,000) besides the reduction's working one.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericMatrix ridge_path_fold_coefficients_cpp(Rcpp::NumericMatrix total,
                                                     Rcpp::NumericMatrix fold,
                                                     Rcpp::NumericVector zbar, double n,
                                                     Rcpp::NumericMatrix zy,
                                                     Rcpp::NumericVector lambdas, bool use_lapack,
                                                     int n_threads, SEXP simd, bool band = false) {
  const std::size_t dim = total.nrow();
  if (total.ncol() != total.nrow() || fold.nrow() != total.nrow() ||
      fold.ncol() != total.ncol() || static_cast<std::size_t>(zbar.size()) != dim ||
      static_cast<std::size_t>(zy.nrow()) != dim) {
    Rcpp::stop("total and fold must be square and of one size, with one zbar and zy row per column.");
  }
  const double* a = total.begin();
  const double* b = fold.begin();
  const double* z = zbar.begin();
  auto entry = [a, b, z, n, dim](std::size_t r, std::size_t c) {
    return kitchen::centred_difference_entry(a, b, z, n, dim, r, c);
  };
  return lambda_path(static_cast<int>(dim), entry, zy, lambdas, use_lapack, band, n_threads, simd);
}

// The reduction itself, for tests and benchmarks: T's diagonal and
// off-diagonal, and Q' x for x (dim x k; Q' when x is the identity), and
// Q y for y. slice_entries > 0 overrides the size of the symmetric
// product's slices (so tests can split small matrices between threads);
// blocked: apply Q by blocks of reflectors (where the SIMD level allows).
// [[Rcpp::export(rng = false)]]
Rcpp::List tridiagonal_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix x, Rcpp::NumericMatrix y,
                           bool use_lapack, int n_threads, SEXP simd, double slice_entries = 0,
                           bool blocked = false) {
  tridiagonal_form form(gram, use_lapack, n_threads, simd,
                        static_cast<std::size_t>(slice_entries));
  if (blocked) form.use_blocks();
  Rcpp::NumericMatrix qtx = Rcpp::clone(x), qy = Rcpp::clone(y);
  form.apply('T', qtx.begin(), qtx.ncol());
  form.apply('N', qy.begin(), qy.ncol());
  Rcpp::NumericVector d(form.d.begin(), form.d.end());
  Rcpp::NumericVector e(form.e.begin(), form.e.begin() + std::max(form.dim - 1, 0));
  return Rcpp::List::create(Rcpp::Named("d") = d, Rcpp::Named("e") = e,
                            Rcpp::Named("qtx") = qtx, Rcpp::Named("qy") = qy);
}

// The band reduction itself, for tests and benchmarks: B in band storage
// ((band width + 1) x dim: entry (c + r, c) in row r + 1 of column c + 1),
// Q' x and Q y. NULL where the SIMD level lacks the kernels.
// [[Rcpp::export(rng = false)]]
SEXP band_reduction_cpp(Rcpp::NumericMatrix gram, Rcpp::NumericMatrix x, Rcpp::NumericMatrix y,
                        int n_threads, SEXP simd) {
#if KITCHEN_X86_SIMD
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  const int dim = gram.nrow();
  if (!kitchen::band_reduction::available(level)) return R_NilValue;
  if (gram.ncol() != dim || x.nrow() != dim || y.nrow() != dim) {
    Rcpp::stop("gram must be square, with as many rows as x and y.");
  }
  band_form form(dim, entries_of(gram), n_threads,
                 level);
  Rcpp::NumericMatrix qtx = Rcpp::clone(x), qy = Rcpp::clone(y);
  form.apply('T', qtx.begin(), qtx.ncol());
  form.apply('N', qy.begin(), qy.ncol());
  Rcpp::NumericMatrix band(kitchen::band_width + 1, dim);
  std::copy(form.own->band().begin(), form.own->band().end(), band.begin());
  return Rcpp::List::create(Rcpp::Named("band") = band, Rcpp::Named("qtx") = qtx,
                            Rcpp::Named("qy") = qy);
#else
  (void)gram; (void)x; (void)y; (void)n_threads; (void)simd;
  return R_NilValue;
#endif
}
