// The dense fit's block loop (R/fit_blocks.R): for each block of rows, the
// features are made into a buffer kept from block to block and from chunk
// to chunk, and added to Z'Z, Z'y and the column sums of Z in place, in one
// call per block. Nothing here passes through R per block: no fresh feature
// matrix (64 MB at 4096 rows x 2048 features, above glibc's mmap threshold,
// so each one paid its page faults), no copy of Z'Z.
//
// The sums are those R computed before (bit for bit, pinned by
// test-pinned-results.R): Z'y and Z'w as R's crossprod() gives them (with
// the reference BLAS, in its dgemm's order by kitchen's kernel over threads:
// ordered_cross_product.hpp; with an optimised BLAS, by its dgemm), column
// sums of Z in long double as colSums() does.
#include "blas_gemm.h"
#include <Rcpp.h>

#include <R_ext/BLAS.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "feature_fill.h"
#include "gram_update.h"
#include "kitchen/huge_pages.hpp"
#include "kitchen/ordered_cross_product.hpp"
#include "map_fields.h"
#include "parallel_chunks.h"
#include "sparse_input.h"
#include "simd_name.h"

SEXP gram_copy_interruptible(SEXP gram, std::size_t dim, int n_threads);  // gram_finish.cpp
void gram_fill_interruptible(SEXP gram, SEXP out, std::size_t dim, int n_threads);  // gram_finish.cpp

#ifndef FCONE
#define FCONE
#endif

namespace {

// A buffer of doubles that only grows; its contents are not kept when it
// does. Not zeroed: every entry used is written first.
class grow_buffer {
 public:
  double* get(std::size_t n) {
    if (n > size_) {
      data_.reset();  // the old block is returned before the larger one is asked for
      data_.reset(new double[n]);
      kitchen::advise_huge_pages(data_.get(), n * sizeof(double));  // see result_matrix.h
      size_ = n;
    }
    return data_.get();
  }
  void release() {
    data_.reset();
    size_ = 0;
  }

 private:
  std::unique_ptr<double[]> data_;
  std::size_t size_ = 0;
};

// Buffers reused by every block of every pass (and every chunk) while a fit
// holds them (fit_workspace_hold_cpp): features, one fold's rows of them,
// the block's rows of x, and the small products; and a spare D x D matrix
// (a chunk's Z'Z once added to the running sums, fit_workspace_recycle_cpp)
// that the next pass zeroes and fills instead of a fresh one: at D = 4096 a
// fresh 128 MB matrix per chunk cost more than the chunk's arithmetic (the
// first touch of its pages). R's main thread only.
struct fit_workspace {
  grow_buffer features, fold_features, x_rows, y_rows, root_rows, product, transposed;
  SEXP spare = R_NilValue;  // preserved while held
  int holders = 0;
  void release() {
    features.release();
    fold_features.release();
    x_rows.release();
    y_rows.release();
    root_rows.release();
    product.release();
    transposed.release();
    keep_spare(R_NilValue);
  }
  void keep_spare(SEXP gram) {
    if (spare != R_NilValue) R_ReleaseObject(spare);
    spare = gram;
    if (spare != R_NilValue) R_PreserveObject(spare);
  }
  // The spare matrix if it is dim x dim (then no longer the spare), or NULL.
  SEXP take_spare(std::size_t dim) {
    if (spare == R_NilValue || static_cast<std::size_t>(Rf_nrows(spare)) != dim) return R_NilValue;
    SEXP out = spare;
    R_ReleaseObject(spare);  // the caller protects it before allocating
    spare = R_NilValue;
    return out;
  }
};

fit_workspace& workspace() {
  static fit_workspace* w = new fit_workspace();  // never destroyed: no exit-order issues
  return *w;
}

// What a pass over the rows needs, read once: the map's typed view and the
// backends (backend_settings() in R), and the running sums, one set per fold
// (or one), held as R matrices that only this object refers to until
// fit_pass_sums_cpp() hands them back.
struct fit_pass {
  bool is_rff = true;
  bool given = false;  // nystrom() maps: R makes each block's features
  kitchen_glue::rff_view rff;
  kitchen::fastfood_map fastfood;
  std::vector<double> folded;
  std::size_t dim = 0, k = 0;
  bool use_blas = false;
  bool reference_blas = true;  // Z'y by ordered_cross_product(), not dgemm
  int n_threads = 1;
  kitchen::simd_level level = kitchen::simd_level::scalar;
  bool finished = false;
};

fit_pass* pass_of(SEXP pointer) {
  if (TYPEOF(pointer) != EXTPTRSXP || R_ExternalPtrAddr(pointer) == nullptr) {
    Rcpp::stop("The fit's pass is no longer valid.");
  }
  return static_cast<fit_pass*>(R_ExternalPtrAddr(pointer));
}

void finalize_pass(SEXP pointer) {
  delete static_cast<fit_pass*>(R_ExternalPtrAddr(pointer));
  R_ClearExternalPtr(pointer);
}

// A setting of backend_settings() by name (an error if missing).
SEXP setting(SEXP settings, const char* name) {
  SEXP value = kitchen_glue::map_field(settings, name);
  if (value == R_NilValue || Rf_length(value) != 1) Rcpp::stop("settings$%s is missing.", name);
  return value;
}

// z' b into out (dim x cols) as R's crossprod(z, b) gives it: by R's
// dgemm when it is an optimised BLAS (its own threads), else in the
// reference dgemm's order by kitchen's kernel, columns of z over threads.
void crossprod_into(const fit_pass& pass, const double* z, std::size_t rows, const double* b,
                    std::size_t cols, double* out) {
  const std::size_t dim = pass.dim;
  if (!pass.reference_blas) {
    const char trans = 'T', no = 'N';
    const double one = 1.0, zero = 0.0;
    const int m = static_cast<int>(dim), n = static_cast<int>(cols), kk = static_cast<int>(rows);
    F77_CALL(dgemm)(&trans, &no, &m, &n, &kk, &one, z, &kk, b, &kk, &zero, out, &m FCONE FCONE);
    return;
  }
  const std::size_t width = kitchen::ordered_row_length(cols);
  double* bt = workspace().transposed.get(rows * width);
  for (std::size_t l = 0; l < rows; ++l) {
    for (std::size_t j = 0; j < width; ++j) bt[l * width + j] = j < cols ? b[l + j * rows] : 0.0;
  }
  const kitchen::simd_level level = pass.level;
  kitchen_glue::parallel_for_chunks(dim, 2.0 * rows * cols, pass.n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::ordered_cross_product(z, rows, rows, bt, width, cols, begin, end, out, dim, level);
  });
}

// Adds rows x dim features z (rows of y, and root = sqrt(w) or null, as the
// rows of z were scaled by it) to one set of sums.
void add_to_sums(const fit_pass& pass, SEXP set, const double* z, std::size_t rows,
                 const double* y, const double* root) {
  if (rows == 0) return;
  const std::size_t dim = pass.dim, k = pass.k;
  kitchen_glue::gram_update_in_place(z, rows, dim, REAL(VECTOR_ELT(set, 0)), pass.use_blas,
                                     pass.n_threads, pass.level);
  double* product = workspace().product.get(dim * (k > 0 ? k : 1));
  double* zy = REAL(VECTOR_ELT(set, 1));
  double* zsum = REAL(VECTOR_ELT(set, 2));
  if (k > 0) {
    crossprod_into(pass, z, rows, y, k, product);
    for (std::size_t i = 0; i < dim * k; ++i) zy[i] += product[i];
  }
  if (root != nullptr) {
    crossprod_into(pass, z, rows, root, 1, product);
    for (std::size_t j = 0; j < dim; ++j) zsum[j] += product[j];
  } else {
    kitchen_glue::parallel_for_chunks(dim, static_cast<double>(rows), pass.n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t j = begin; j < end; ++j) {
        const double* column = z + j * rows;
        long double sum = 0.0;
        for (std::size_t i = 0; i < rows; ++i) sum += column[i];
        zsum[j] += static_cast<double>(sum);
      }
    });
  }
}

}  // namespace

// Takes (hold = TRUE) or gives back (FALSE) the buffers of the block loop:
// they are kept while anyone holds them, and freed when the last holder
// gives them back (R/fit_blocks.R, on exit of each pass).
// [[Rcpp::export(rng = false)]]
void fit_workspace_hold_cpp(bool hold) {
  fit_workspace& w = workspace();
  if (hold) {
    ++w.holders;
  } else if (w.holders > 0 && --w.holders == 0) {
    w.release();
  }
}

// Gives `gram` (a square double matrix that nothing will read again: a
// chunk's Z'Z once added to the running sums) to the block loop, whose next
// pass of the same size overwrites it with its own sums. Kept only while
// the workspace is held.
// [[Rcpp::export(rng = false)]]
void fit_workspace_recycle_cpp(SEXP gram) {
  fit_workspace& w = workspace();
  if (w.holders == 0 || TYPEOF(gram) != REALSXP || !Rf_isMatrix(gram) ||
      Rf_nrows(gram) != Rf_ncols(gram)) {
    return;
  }
  w.keep_spare(gram);
}

// A pass over rows for `map` (an rff() or fastfood() object, checked here
// once; for a nystrom() map, fit_block_cpp() takes the block's features),
// k response columns and n_sets sets of sums (one per fold, or one),
// with `settings` from backend_settings(). Returns the pass (an external
// pointer, with the sums in its protected list), or a string saying what is
// wrong with the map.
// [[Rcpp::export(rng = false)]]
SEXP fit_pass_cpp(SEXP map, int k, int n_sets, SEXP settings) {
  std::unique_ptr<fit_pass> pass(new fit_pass());
  pass->is_rff = Rf_inherits(map, "kitchen_rff");
  const char* problem = nullptr;
  if (pass->is_rff) {
    problem = kitchen_glue::read_rff_map(map, pass->rff);
    pass->dim = kitchen::rff_n_features(pass->rff.kind, pass->rff.m);
  } else if (Rf_inherits(map, "kitchen_fastfood")) {
    problem = kitchen_glue::read_fastfood_map(map, false, kitchen_glue::map_field(map, "center"),
                                              kitchen_glue::map_field(map, "scale"),
                                              pass->fastfood, pass->folded);
    pass->dim = pass->fastfood.width();
  } else if (Rf_inherits(map, "kitchen_nystrom")) {
    pass->is_rff = false;
    pass->given = true;
  } else {
    Rcpp::stop("The fit's block loop takes rff(), fastfood() and nystrom() maps.");
  }
  if (problem) return Rf_mkString(problem);
  SEXP n_features = kitchen_glue::map_field(map, "n_features");
  if (pass->given && Rf_isNumeric(n_features) && XLENGTH(n_features) == 1 &&
      Rf_asReal(n_features) >= 1 && Rf_asReal(n_features) <= 1e9) {
    pass->dim = static_cast<std::size_t>(Rf_asReal(n_features));
  }
  if (!Rf_isNumeric(n_features) || XLENGTH(n_features) != 1 ||
      Rf_asReal(n_features) != static_cast<double>(pass->dim)) {
    return Rf_mkString("{.field n_features} must be the number of features its numbers give.");
  }
  if (k < 0 || n_sets < 1) Rcpp::stop("k must be >= 0 and n_sets >= 1.");
  pass->k = static_cast<std::size_t>(k);
  pass->use_blas = Rf_asLogical(setting(settings, "blas")) == TRUE;
  pass->reference_blas = Rf_asLogical(setting(settings, "reference_blas")) == TRUE;
  pass->n_threads = Rf_asInteger(setting(settings, "n_threads"));
  pass->level = kitchen_glue::simd_from_name(setting(settings, "simd"));

  const std::size_t dim = pass->dim;
  Rcpp::Shield<SEXP> sets(Rf_allocVector(VECSXP, n_sets));
  for (int s = 0; s < n_sets; ++s) {
    Rcpp::Shield<SEXP> set(Rf_allocVector(VECSXP, 3));
    // Z'Z's zeros by blocks between interrupt checks: five folds' 1.15 GB
    // matrices at D = 12,000 take seconds to touch for the first time; a
    // spare matrix already touched is only overwritten.
    SEXP spare = workspace().take_spare(dim);
    if (spare != R_NilValue) {
      SET_VECTOR_ELT(set, 0, spare);
      gram_fill_interruptible(R_NilValue, spare, dim, pass->n_threads);  // zeros
    } else {
      SET_VECTOR_ELT(set, 0, gram_copy_interruptible(R_NilValue, dim, pass->n_threads));
    }
    SET_VECTOR_ELT(set, 1, Rf_allocMatrix(REALSXP, static_cast<int>(dim), k));
    SET_VECTOR_ELT(set, 2, Rf_allocVector(REALSXP, static_cast<R_xlen_t>(dim)));
    for (int e = 1; e < 3; ++e) {
      SEXP v = VECTOR_ELT(set, e);
      std::memset(REAL(v), 0, sizeof(double) * static_cast<std::size_t>(XLENGTH(v)));
    }
    SET_VECTOR_ELT(sets, s, set);
  }
  // The map is protected with the sums: the views point into it.
  Rcpp::Shield<SEXP> keep(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(keep, 0, sets);
  SET_VECTOR_ELT(keep, 1, map);
  Rcpp::Shield<SEXP> pointer(R_MakeExternalPtr(pass.release(), R_NilValue, keep));
  R_RegisterCFinalizerEx(pointer, finalize_pass, TRUE);
  return pointer;
}

// Adds the rows `rows` (1-based indices) of x to the pass's sums: x is the
// training matrix (dense, already checked), or, when sparse, a dgCMatrix of
// just those rows (for fastfood maps transposed, one column per row). y:
// those rows' responses (one row each, k columns), times root when
// weighted; root: sqrt of their weights, or NULL; set: their set (1-based
// fold), or NULL for set 1. Returns NULL, or a string saying what is wrong
// with x.
// [[Rcpp::export(rng = false)]]
SEXP fit_block_cpp(SEXP pointer, SEXP x, SEXP rows_of_x, SEXP y, SEXP root, SEXP set) {
  fit_pass& pass = *pass_of(pointer);
  if (pass.finished) Rcpp::stop("The fit's pass is finished.");
  SEXP sets = VECTOR_ELT(R_ExternalPtrProtected(pointer), 0);
  if (TYPEOF(rows_of_x) != INTSXP) Rcpp::stop("rows must be integers.");
  const std::size_t rows = static_cast<std::size_t>(XLENGTH(rows_of_x)), dim = pass.dim, k = pass.k;
  const int* index = INTEGER(rows_of_x);
  if (TYPEOF(y) != REALSXP || static_cast<std::size_t>(XLENGTH(y)) != rows * k) {
    Rcpp::stop("y must hold one row of k doubles per row.");
  }
  if (root != R_NilValue && !kitchen_glue::is_doubles(root, rows)) {
    Rcpp::stop("root must hold one double per row.");
  }
  if (set != R_NilValue && (TYPEOF(set) != INTSXP || static_cast<std::size_t>(XLENGTH(set)) != rows)) {
    Rcpp::stop("set must hold one integer per row.");
  }
  if (rows == 0) return R_NilValue;
  fit_workspace& w = workspace();
  double* z = w.features.get(rows * dim);
  const std::size_t d = pass.is_rff ? pass.rff.d : pass.fastfood.d;

  if (pass.given) {  // x holds the block's features, one row per row
    if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || static_cast<std::size_t>(Rf_nrows(x)) != rows ||
        static_cast<std::size_t>(Rf_ncols(x)) != dim) {
      Rcpp::stop("The block's features must be a rows x n_features double matrix.");
    }
    std::memcpy(z, REAL(x), rows * dim * sizeof(double));
  } else if (Rf_isS4(x)) {
    if (kitchen_glue::dgc_problem(x)) return Rf_mkString(kitchen_glue::malformed_data_message);
    const int* shape = INTEGER(R_do_slot(x, Rf_install("Dim")));
    const bool transposed = !pass.is_rff;
    const std::size_t x_rows = transposed ? shape[1] : shape[0];
    const std::size_t x_cols = transposed ? shape[0] : shape[1];
    if (x_rows != rows || x_cols != d) {
      return Rf_mkString("{.field d} must be the number of columns of the data.");
    }
    const int* col_ptr = INTEGER(R_do_slot(x, Rf_install("p")));
    const int* row_idx = INTEGER(R_do_slot(x, Rf_install("i")));
    const double* val = REAL(R_do_slot(x, Rf_install("x")));
    if (pass.is_rff) {
      kitchen_glue::rff_sparse_fill(col_ptr, row_idx, val, rows, d, pass.rff.projection,
                                    pass.rff.m, pass.rff.offset.data(), pass.rff.kind, z,
                                    pass.n_threads, pass.level);
    } else {
      std::vector<double> base(d);  // the rescaled value of a zero entry
      for (std::size_t j = 0; j < d; ++j) {
        base[j] = (0.0 - pass.fastfood.center[j]) / pass.fastfood.scale[j];
      }
      const kitchen::fastfood_sparse_rows sparse{col_ptr, row_idx, val, base.data()};
      kitchen_glue::fastfood_fill(pass.fastfood, sparse, rows, z, pass.n_threads, pass.level);
    }
  } else {
    if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x) || static_cast<std::size_t>(Rf_ncols(x)) != d) {
      return Rf_mkString("{.field d} must be the number of columns of the data.");
    }
    const std::size_t n = Rf_nrows(x);
    bool contiguous = true;  // rows index[0], index[0] + 1, ...
    for (std::size_t i = 0; i < rows; ++i) {
      if (index[i] < 1 || static_cast<std::size_t>(index[i]) > n) {
        Rcpp::stop("The block's rows are outside x.");
      }
      contiguous = contiguous && index[i] == index[0] + static_cast<int>(i);
    }
    const bool all_in_order = contiguous && rows == n;
    // The block's rows, gathered into a buffer (the whole of x needs none).
    const double* xb = REAL(x);
    if (!all_in_order) {
      double* gathered = w.x_rows.get(rows * d);
      for (std::size_t j = 0; j < d; ++j) {
        const double* column = REAL(x) + j * n;
        double* to = gathered + j * rows;
        if (contiguous) {
          std::memcpy(to, column + (index[0] - 1), rows * sizeof(double));
        } else {
          for (std::size_t i = 0; i < rows; ++i) to[i] = column[index[i] - 1];
        }
      }
      xb = gathered;
    }
    if (pass.is_rff) {
      kitchen_glue::rff_dense_fill(xb, rows, d, pass.rff.projection, pass.rff.m,
                                   pass.rff.offset.data(), pass.rff.kind, z, pass.use_blas,
                                   pass.n_threads, pass.level);
    } else {
      const kitchen::fastfood_dense_rows dense{xb, rows};
      kitchen_glue::fastfood_fill(pass.fastfood, dense, rows, z, pass.n_threads, pass.level);
    }
  }

  const double* r = root == R_NilValue ? nullptr : REAL(root);
  if (r != nullptr) {  // Z'WZ is the Gram matrix of diag(sqrt(w)) Z
    for (std::size_t j = 0; j < dim; ++j) {
      double* column = z + j * rows;
      for (std::size_t i = 0; i < rows; ++i) column[i] *= r[i];
    }
  }
  const std::size_t n_sets = static_cast<std::size_t>(XLENGTH(sets));
  if (set == R_NilValue) {
    add_to_sums(pass, VECTOR_ELT(sets, 0), z, rows, REAL(y), r);
    return R_NilValue;
  }
  // Folds: each fold's rows of the block, gathered in order, go to its set.
  const int* which = INTEGER(set);
  for (std::size_t i = 0; i < rows; ++i) {
    if (which[i] < 1 || static_cast<std::size_t>(which[i]) > n_sets) {
      Rcpp::stop("set must hold fold numbers from 1 to the number of sets.");
    }
  }
  std::vector<std::size_t> mine;
  mine.reserve(rows);
  for (std::size_t s = 1; s <= n_sets; ++s) {
    mine.clear();
    for (std::size_t i = 0; i < rows; ++i) {
      if (static_cast<std::size_t>(which[i]) == s) mine.push_back(i);
    }
    if (mine.empty()) continue;
    const std::size_t nk = mine.size();
    double* zk = w.fold_features.get(nk * dim);
    for (std::size_t j = 0; j < dim; ++j) {
      const double* from = z + j * rows;
      double* to = zk + j * nk;
      for (std::size_t i = 0; i < nk; ++i) to[i] = from[mine[i]];
    }
    double* yk = w.y_rows.get(nk * (k > 0 ? k : 1));
    for (std::size_t c = 0; c < k; ++c) {
      for (std::size_t i = 0; i < nk; ++i) yk[i + c * nk] = REAL(y)[mine[i] + c * rows];
    }
    double* rk = nullptr;
    if (r != nullptr) {
      rk = w.root_rows.get(nk);
      for (std::size_t i = 0; i < nk; ++i) rk[i] = r[mine[i]];
    }
    add_to_sums(pass, VECTOR_ELT(sets, s - 1), zk, nk, yk, rk);
  }
  return R_NilValue;
}

// The pass's sums, one list(gram, zy, zsum) per set (the Gram matrices'
// upper triangles), handed over to R: the pass takes no more blocks.
// [[Rcpp::export(rng = false)]]
SEXP fit_pass_sums_cpp(SEXP pointer) {
  fit_pass& pass = *pass_of(pointer);
  pass.finished = true;
  return VECTOR_ELT(R_ExternalPtrProtected(pointer), 0);
}
