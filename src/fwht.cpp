// Glue for fwht(): R checks the arguments; here we transform and return.
#include <Rcpp.h>

#include <cmath>
#include <cstddef>
#include <atomic>

#include "kitchen/fwht.hpp"
#include "kitchen/huge_pages.hpp"
#include "parallel_chunks.h"
#include "simd_name.h"

// Column length above which a column is transformed in pieces
// (long_column()); kitchen::fwht_piece, smaller in tests.
static std::size_t fwht_piece_length = kitchen::fwht_piece;

// Sets the piece length (a power of two, at least 64) and returns the one
// before; for tests.
// [[Rcpp::export(rng = false)]]
double fwht_piece_cpp(double length) {
  const double before = static_cast<double>(fwht_piece_length);
  fwht_piece_length = static_cast<std::size_t>(length);
  return before;
}

namespace {

// One long column: the transforms of its blocks of `piece` elements (half
// of `piece` when that leaves an odd number of stages above), then the
// stages above two at a time by ranges of quads
// (kitchen::fwht_two_stages_range()), all spread over threads with
// interrupt checks between chunks. False if `in` has a non-finite value.
bool long_column(const double* in, double* out, std::size_t n, std::size_t piece,
                 kitchen::simd_level level, double scale, int n_threads) {
  std::size_t stages_above = 0;
  for (std::size_t h = piece; h < n; h <<= 1) ++stages_above;
  if (stages_above % 2 == 1) piece /= 2;
  std::atomic<bool> finite(true);
  const double piece_cost = static_cast<double>(piece) * (std::log2(static_cast<double>(piece)) + 1.0);
  kitchen_glue::parallel_for_chunks(n / piece, piece_cost, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t p = begin; p < end; ++p) {
      if (!kitchen::fwht_checked(in + p * piece, out + p * piece, piece, level, 1.0)) {
        finite.store(false, std::memory_order_relaxed);
        return;
      }
    }
  });
  if (!finite.load()) return false;
  for (std::size_t h = piece; h < n; h *= 4) {
    const bool scaled = 4 * h == n && scale != 1.0;
    kitchen_glue::parallel_for_chunks(n / 4, 8.0, n_threads, [&](std::size_t begin, std::size_t end) {
      if (scaled) kitchen::fwht_two_stages_range<true>(out, h, begin, end, scale);
      else kitchen::fwht_two_stages_range<false>(out, h, begin, end, scale);
    });
  }
  return true;
}

}  // namespace

// x: a double vector or matrix (checked in R); every column has length
// n_rows, a power of two. The result is a new vector with x's attributes.
// Each column is transformed out of place: the first pass of the transform
// reads x and writes the result (no separate copy), checking x for
// NA/NaN/Inf as it goes, and the last pass applies the normalisation, so a
// column costs no pass over memory beyond the transform's own. Returns NULL
// if x has a non-finite value, for R to report where.
// [[Rcpp::export(rng = false)]]
SEXP fwht_cpp(SEXP x, double n_rows, bool normalize, int n_threads, SEXP simd) {
  const std::size_t n = static_cast<std::size_t>(n_rows);
  const std::size_t len = static_cast<std::size_t>(XLENGTH(x));
  const std::size_t n_cols = len / n;
  const kitchen::simd_level level =
      kitchen_glue::simd_from_name(simd);
  const double scale = normalize ? 1.0 / std::sqrt(static_cast<double>(n)) : 1.0;

  Rcpp::Shield<SEXP> out(Rf_allocVector(REALSXP, XLENGTH(x)));
  DUPLICATE_ATTRIB(out, x);
  const double* input = REAL(x);
  double* output = REAL(out);
  kitchen::advise_huge_pages(output, len * sizeof(double));

  if (n > fwht_piece_length) {
    // Long columns one after the other, each spread over threads in pieces.
    for (std::size_t j = 0; j < n_cols; ++j) {
      if (!long_column(input + j * n, output + j * n, n, fwht_piece_length, level, scale,
                       n_threads)) {
        return R_NilValue;
      }
    }
    return out;
  }
  std::atomic<bool> finite(true);
  const double cost_per_column = static_cast<double>(n) * (std::log2(static_cast<double>(n)) + 1.0);
  kitchen_glue::parallel_for_chunks(n_cols, cost_per_column, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      if (!kitchen::fwht_checked(input + j * n, output + j * n, n, level, scale)) {
        finite.store(false, std::memory_order_relaxed);
        return;
      }
    }
  });
  if (!finite.load()) return R_NilValue;
  return out;
}
