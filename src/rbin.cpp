// Glue for rbin(): building a map's bin tables from training rows, finding
// the columns of new rows, and assembling the sparse feature matrix. R has
// checked the data and the shapes of the map's fields; here we check what
// only a pass over the keys can tell, allocate, and spread the work over
// threads (rows for dense data, grids for sparse data and per-grid steps).
#include <Rcpp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "kitchen/huge_pages.hpp"
#include "kitchen/rbin.hpp"
#include "parallel_chunks.h"
#include "rbin_index_cache.h"
#include "sparse_input.h"
#include "simd_name.h"

namespace {

// Rows whose keys are computed at a time when finding columns: bounds the
// scratch memory to n_grids * 8 bytes * this many rows.
const std::size_t rbin_chunk_rows = 65536;

struct rbin_affine_forms {
  std::vector<double> a, b;
  kitchen::rbin_grids grids;
  rbin_affine_forms(Rcpp::NumericMatrix pitch, Rcpp::NumericMatrix shift,
                    Rcpp::NumericVector center, Rcpp::NumericVector scale)
      : a(pitch.size()), b(pitch.size()) {
    const std::size_t d = pitch.nrow(), n_grids = pitch.ncol();
    kitchen::rbin_affine(pitch.begin(), shift.begin(), center.begin(), scale.begin(), d,
                         n_grids, a.data(), b.data());
    grids = kitchen::rbin_grids{d, n_grids, a.data(), b.data()};
  }
};

std::size_t data_rows(SEXP x) {
  if (Rf_isS4(x)) return INTEGER(R_do_slot(x, Rf_install("Dim")))[0];
  return Rf_nrows(x);
}

// Keys of rows [r0, r0 + rows) of x in every grid, into keys (grid-major,
// n_grids x rows). Sparse data is always passed whole (r0 = 0).
void rbin_keys(SEXP x, const kitchen::rbin_grids& grids, std::size_t r0, std::size_t rows,
               std::uint64_t* keys, int n_threads, kitchen::simd_level level) {
  const std::size_t n_grids = grids.n_grids, d = grids.d;
  if (Rf_isS4(x)) {
    const int* col_ptr = INTEGER(R_do_slot(x, Rf_install("p")));
    const int* row_idx = INTEGER(R_do_slot(x, Rf_install("i")));
    const double* val = REAL(R_do_slot(x, Rf_install("x")));
    const double cost = static_cast<double>(col_ptr[d]) * 4.0 + rows + 4.0 * d;
    kitchen_glue::parallel_for_chunks(n_grids, cost, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      kitchen::rbin_key_sums_sparse(grids, col_ptr, row_idx, val, rows, begin, end, keys, rows);
      for (std::size_t g = begin; g < end; ++g) kitchen::rbin_finish_keys(keys + g * rows, rows);
    });
    return;
  }
  const double* xd = REAL(x) + r0;
  const std::size_t ld = Rf_nrows(x);
  std::fill(keys, keys + n_grids * rows, std::uint64_t(0));
  const std::size_t block = 256;
  const std::size_t n_blocks = (rows + block - 1) / block;
  kitchen_glue::parallel_for_chunks(n_blocks, 4.0 * block * d * n_grids, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    const std::size_t r_begin = begin * block, r_end = std::min(rows, end * block);
    kitchen::rbin_key_sums_dense(grids, xd, ld, r_begin, r_end, keys, rows, level);
    for (std::size_t g = 0; g < n_grids; ++g) {
      kitchen::rbin_finish_keys(keys + g * rows + r_begin, r_end - r_begin);
    }
  });
}

}  // namespace

// x: dense n x d matrix or dgCMatrix; pitch, shift: d x n_grids; center,
// scale: d. Returns list(keys = raw vector of the sorted distinct keys of
// each grid, grid after grid, 8 bytes each in native byte order; n_bins =
// how many keys each grid has), or a string saying what is wrong with the
// data or the shapes.
// [[Rcpp::export(rng = false)]]
SEXP rbin_build_cpp(SEXP x, Rcpp::NumericMatrix pitch, Rcpp::NumericMatrix shift,
                    Rcpp::NumericVector center, Rcpp::NumericVector scale, int n_threads,
                    SEXP simd) {
  const kitchen::simd_level level = kitchen_glue::simd_from_name(simd);
  if (Rf_isS4(x) && kitchen_glue::dgc_problem(x)) {
    return Rf_mkString(kitchen_glue::malformed_data_message);
  }
  const std::size_t x_cols = Rf_isS4(x) ? INTEGER(R_do_slot(x, Rf_install("Dim")))[1]
                                        : (Rf_isMatrix(x) ? Rf_ncols(x) : 0);
  if (x_cols != static_cast<std::size_t>(pitch.nrow()) ||
      (!Rf_isS4(x) && TYPEOF(x) != REALSXP) || shift.nrow() != pitch.nrow() ||
      shift.ncol() != pitch.ncol() || center.size() != pitch.nrow() ||
      scale.size() != pitch.nrow()) {
    return Rf_mkString("{.field pitch}, {.field shift}, {.field center} and {.field scale} must fit the data's columns.");
  }
  const rbin_affine_forms forms(pitch, shift, center, scale);
  const std::size_t n = data_rows(x), n_grids = pitch.ncol();
  std::vector<std::uint64_t> keys(n * n_grids);
  rbin_keys(x, forms.grids, 0, n, keys.data(), n_threads, level);

  std::vector<std::size_t> counts(n_grids);
  kitchen_glue::parallel_for_chunks(n_grids, 30.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    std::vector<std::uint64_t> scratch;
    for (std::size_t g = begin; g < end; ++g) {
      counts[g] = kitchen::rbin_distinct_keys(keys.data() + g * n, n, scratch);
    }
  });
  std::size_t total = 0;
  for (std::size_t c : counts) total += c;
  Rcpp::RawVector out_keys(total * sizeof(std::uint64_t));
  Rcpp::IntegerVector n_bins(n_grids);
  unsigned char* dest = out_keys.begin();
  for (std::size_t g = 0; g < n_grids; ++g) {
    std::memcpy(dest, keys.data() + g * n, counts[g] * sizeof(std::uint64_t));
    dest += counts[g] * sizeof(std::uint64_t);
    n_bins[g] = static_cast<int>(counts[g]);
  }
  return Rcpp::List::create(Rcpp::Named("keys") = out_keys, Rcpp::Named("n_bins") = n_bins);
}

// Column (0-based) of each row's bin in each grid, an n x n_grids integer
// matrix; -1 where the bin was not seen when the map was built. With
// n_buckets > 0 (hashed mode) keys and n_bins are not used and grid g's
// bins hash into columns [g n_buckets, (g + 1) n_buckets). Returns a string
// saying what is wrong if the map's sizes do not fit together or the stored
// keys are not sorted and distinct (a tampered map), for R to report.
// rbin_columns_at() takes the SIMD level as the core's (small_calls.cpp).
SEXP rbin_columns_at(SEXP x, Rcpp::NumericMatrix pitch, Rcpp::NumericMatrix shift,
                     Rcpp::NumericVector center, Rcpp::NumericVector scale,
                     Rcpp::RawVector keys, Rcpp::IntegerVector n_bins, double n_buckets,
                     int n_threads, kitchen::simd_level level) {
  // Sizes are re-checked here, so that a map R did not check cannot make
  // us read or write out of bounds.
  const std::size_t d = pitch.nrow(), n_grids = pitch.ncol();
  if (shift.nrow() != pitch.nrow() || shift.ncol() != pitch.ncol()) {
    return Rf_mkString("{.field shift} must have the shape of {.field pitch}.");
  }
  if (static_cast<std::size_t>(center.size()) != d || static_cast<std::size_t>(scale.size()) != d) {
    return Rf_mkString("{.field center} and {.field scale} must hold one double per row of {.field pitch}.");
  }
  if (Rf_isS4(x) && kitchen_glue::dgc_problem(x)) {
    return Rf_mkString(kitchen_glue::malformed_data_message);
  }
  const std::size_t x_cols = Rf_isS4(x) ? INTEGER(R_do_slot(x, Rf_install("Dim")))[1]
                                        : (Rf_isMatrix(x) ? Rf_ncols(x) : 0);
  if (x_cols != d || (!Rf_isS4(x) && TYPEOF(x) != REALSXP)) {
    return Rf_mkString("{.field pitch} must have one row per column of the data.");
  }
  const bool hashed = n_buckets > 0;
  if (hashed && !(n_buckets * static_cast<double>(n_grids) <= 2147483647.0)) {
    return Rf_mkString("{.field n_grids} x {.field n_buckets} must be at most 2^31 - 1.");
  }
  if (!hashed) {
    if (static_cast<std::size_t>(n_bins.size()) != n_grids) {
      return Rf_mkString("{.field n_bins} must hold one count per column of {.field pitch}.");
    }
    double total = 0;
    bool negative = false;
    for (std::size_t g = 0; g < n_grids; ++g) {
      total += n_bins[g];
      negative = negative || n_bins[g] < 0;  // NA_integer_ is negative too
    }
    if (negative || total > 2147483647.0) {
      return Rf_mkString("{.field n_bins} must hold non-negative counts summing to at most 2^31 - 1.");
    }
  }
  const rbin_affine_forms forms(pitch, shift, center, scale);
  const std::size_t n = data_rows(x);
  const std::uint64_t buckets = hashed ? static_cast<std::uint64_t>(n_buckets) : 0;

  // One lookup table per grid, built once per map (rbin_index_cache.h).
  std::shared_ptr<const kitchen_glue::rbin_tables> tables;
  if (!hashed) {
    const char* problem = nullptr;
    tables = kitchen_glue::cached_rbin_tables(keys, n_bins, n_threads, &problem);
    if (!tables) return Rf_mkString(problem);
  }

  Rcpp::IntegerMatrix out(Rcpp::no_init(n, n_grids));
  int* cols = out.begin();
  const std::size_t chunk = Rf_isS4(x) ? std::max<std::size_t>(n, 1) : rbin_chunk_rows;
  std::vector<std::uint64_t> scratch(n_grids * std::min(chunk, n));
  for (std::size_t r0 = 0; r0 < n; r0 += chunk) {
    const std::size_t rows = std::min(chunk, n - r0);
    rbin_keys(x, forms.grids, r0, rows, scratch.data(), n_threads, level);
    kitchen_glue::parallel_for_chunks(n_grids, 20.0 * rows, n_threads,
                                      [&](std::size_t begin, std::size_t end) {
      for (std::size_t g = begin; g < end; ++g) {
        const std::uint64_t* k = scratch.data() + g * rows;
        int* c = cols + g * n + r0;
        if (hashed) {
          const std::uint64_t base = g * buckets;
          for (std::size_t i = 0; i < rows; ++i) c[i] = static_cast<int>(base + k[i] % buckets);
        } else {
          const kitchen::bin_index& table = *tables->tables[g];
          const std::int64_t base = static_cast<std::int64_t>(tables->first[g]);
          for (std::size_t i = 0; i < rows; ++i) {
            const std::int64_t rank = table.find(k[i]);
            c[i] = rank < 0 ? -1 : static_cast<int>(base + rank);
          }
        }
      }
    });
  }
  return out;
}

// [[Rcpp::export(rng = false)]]
SEXP rbin_columns_cpp(SEXP x, Rcpp::NumericMatrix pitch, Rcpp::NumericMatrix shift,
                      Rcpp::NumericVector center, Rcpp::NumericVector scale,
                      Rcpp::RawVector keys, Rcpp::IntegerVector n_bins, double n_buckets,
                      int n_threads, SEXP simd) {
  return rbin_columns_at(x, pitch, shift, center, scale, keys, n_bins, n_buckets, n_threads,
                         kitchen_glue::simd_from_name(simd));
}

// The n x grid_first[n_grids] dgCMatrix with `value` at (i, cols[i, g])
// for every row i and grid g with cols[i, g] >= 0. Grid g's columns are
// [grid_first[g], grid_first[g + 1]), so grids are assembled in parallel
// without sharing an entry, and rows enter each column in order. Returns a
// string saying what is wrong if the offsets are not whole, increasing
// counts from 0, or a column number lies outside its grid's range (a
// tampered or hand-made `cols`): those would index out of bounds.
// [[Rcpp::export(rng = false)]]
SEXP rbin_sparse_cpp(Rcpp::IntegerMatrix cols, Rcpp::NumericVector grid_first, double value,
                     int n_threads) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  if (static_cast<std::size_t>(grid_first.size()) != n_grids + 1) {
    return Rf_mkString("{.arg grid_first} must hold one offset per grid, and one more.");
  }
  bool offsets_ok = grid_first[0] == 0 && grid_first[n_grids] <= 2147483647.0;
  for (std::size_t g = 0; g < n_grids; ++g) {
    offsets_ok = offsets_ok && grid_first[g] <= grid_first[g + 1] &&
                 grid_first[g + 1] == std::floor(grid_first[g + 1]);
  }
  if (!offsets_ok) {
    return Rf_mkString("{.arg grid_first} must be whole, non-decreasing offsets from 0 to at most 2^31 - 1.");
  }
  const int* c = cols.begin();
  std::atomic<bool> columns_ok(true);
  kitchen_glue::parallel_for_chunks(n_grids, 2.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    bool ok = true;
    for (std::size_t g = begin; g < end; ++g) {
      const int lo = static_cast<int>(grid_first[g]), hi = static_cast<int>(grid_first[g + 1]);
      for (std::size_t i = 0; i < n; ++i) {
        const int col = c[g * n + i];
        ok = ok && (col == -1 || (col >= lo && col < hi));
      }
    }
    if (!ok) columns_ok = false;
  });
  if (!columns_ok) {
    return Rf_mkString("{.arg cols} must hold, for each grid, -1 or a column number in that grid's range.");
  }
  const std::size_t n_col = static_cast<std::size_t>(grid_first[n_grids]);
  Rcpp::IntegerVector p(n_col + 1);
  int* col_ptr = p.begin();
  std::fill(col_ptr, col_ptr + n_col + 1, 0);
  kitchen_glue::parallel_for_chunks(n_grids, 4.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t g = begin; g < end; ++g) {
      for (std::size_t i = 0; i < n; ++i) {
        if (c[g * n + i] >= 0) ++col_ptr[c[g * n + i] + 1];
      }
    }
  });
  std::size_t nnz = 0;
  for (std::size_t k = 0; k < n_col; ++k) {
    nnz += col_ptr[k + 1];
    col_ptr[k + 1] = static_cast<int>(nnz);
  }
  Rcpp::IntegerVector row_idx(Rcpp::no_init(nnz));
  Rcpp::NumericVector x(Rcpp::no_init(nnz));
  kitchen::advise_huge_pages(x.begin(), nnz * sizeof(double));
  std::fill(x.begin(), x.end(), value);
  int* ri = row_idx.begin();
  kitchen_glue::parallel_for_chunks(n_grids, 8.0 * n, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    std::vector<int> next;
    for (std::size_t g = begin; g < end; ++g) {
      const std::size_t lo = static_cast<std::size_t>(grid_first[g]);
      next.assign(col_ptr + lo, col_ptr + static_cast<std::size_t>(grid_first[g + 1]));
      for (std::size_t i = 0; i < n; ++i) {
        const int col = c[g * n + i];
        if (col >= 0) ri[next[col - lo]++] = static_cast<int>(i);
      }
    }
  });

  Rcpp::S4 out("dgCMatrix");
  out.slot("i") = row_idx;
  out.slot("p") = p;
  out.slot("x") = x;
  out.slot("Dim") = Rcpp::IntegerVector::create(static_cast<int>(n), static_cast<int>(n_col));
  return out;
}

// c(row-grid pairs with no column, rows with at least one) for the output
// of rbin_columns_cpp.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector rbin_unseen_cpp(Rcpp::IntegerMatrix cols) {
  const std::size_t n = cols.nrow(), n_grids = cols.ncol();
  std::vector<unsigned char> row_missing(n, 0);
  double pairs = 0;
  for (std::size_t g = 0; g < n_grids; ++g) {
    const int* c = cols.begin() + g * n;
    for (std::size_t i = 0; i < n; ++i) {
      if (c[i] < 0) {
        ++pairs;
        row_missing[i] = 1;
      }
    }
  }
  double rows = 0;
  for (unsigned char m : row_missing) rows += m;
  return Rcpp::NumericVector::create(pairs, rows);
}
