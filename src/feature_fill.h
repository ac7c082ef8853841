// Feature kernels that write into memory the caller owns: predict() hands
// them a fresh R matrix, the fit's block loop (fit_blocks.cpp) a buffer it
// reuses from block to block.
#pragma once

#include <Rinternals.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "kitchen/fastfood.hpp"
#include "kitchen/rff.hpp"
#include "kitchen/simd.hpp"
#include "rff_map_cache.h"

namespace kitchen_glue {

// An rff() map's numbers, with the offsets of rff_offset().
struct rff_view {
  const double* projection = nullptr;  // d x m
  std::size_t d = 0, m = 0;
  kitchen::rff_type kind = kitchen::rff_type::cos_sin;
  std::vector<double> offset;
  // P transposed (rff_map_cache.h) for the products of a few rows, or null.
  const double* transposed = nullptr;
  std::shared_ptr<const rff_derived> derived;  // owns `transposed`
};

// Checks an rff map's numbers and fills `view`: what is wrong (cli markup
// naming the field), or nullptr. type: 0 cos_sin, 1 cos_phase. rff.cpp.
// With `cached`, the offset and P transposed come from the session's cache
// of small maps (rff_map_cache.h).
const char* rff_view_of(SEXP projection, SEXP center, SEXP phase, int type, rff_view& view,
                        bool cached = false);

// The same from an rff() object (its fields by name). rff.cpp.
const char* read_rff_map(SEXP list, rff_view& view, bool cached = false);

// rff features of n dense rows (column stride n) into res (column stride
// n); `transposed`, when given, serves the products of a few rows. rff.cpp.
void rff_dense_fill(const double* xd, std::size_t n, std::size_t d, const double* p,
                    std::size_t m, const double* o, kitchen::rff_type kind, double* res,
                    bool use_blas, int n_threads, kitchen::simd_level level,
                    const double* transposed = nullptr);

// rff features of a n x d dgCMatrix (its slots) into res. rff.cpp.
void rff_sparse_fill(const int* col_ptr, const int* row_idx, const double* val, std::size_t n,
                     std::size_t d, const double* p, std::size_t m, const double* o,
                     kitchen::rff_type kind, double* res, int n_threads,
                     kitchen::simd_level level);

// The typed view of a fastfood() list, checked (fastfood.cpp): what is wrong
// with it, or nullptr. `folded` holds per-column bandwidths folded into the
// scales.
const char* read_fastfood_map(SEXP list, bool project_only, SEXP center, SEXP scale,
                              kitchen::fastfood_map& map, std::vector<double>& folded);

// Fastfood features of n rows into res (n x width, column stride n).
void fastfood_fill(const kitchen::fastfood_map& map, const kitchen::fastfood_dense_rows& rows,
                   std::size_t n, double* res, int n_threads, kitchen::simd_level level);
void fastfood_fill(const kitchen::fastfood_map& map, const kitchen::fastfood_sparse_rows& rows,
                   std::size_t n, double* res, int n_threads, kitchen::simd_level level);

}  // namespace kitchen_glue
