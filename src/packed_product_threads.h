// res = a * B over threads for B packed once (kitchen::gemm_packed_rhs),
// unit by unit (a block of rows times a group of column strips), each
// thread with its own left-hand packing buffer. rff, Nystroem features and
// K_CC^(-1/2)'s S S' share this loop; `after_unit(u)` runs on each finished
// unit (rff's cosines), `[](const kitchen::gemm_unit&) {}` when nothing does.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "kitchen/gemm_simd.hpp"
#include "parallel_chunks.h"

namespace kitchen_glue {

// Packs B (inner x cols, column-major) into `rhs` over threads, strip by
// strip: the first step of every product below.
inline void pack_over_threads(kitchen::gemm_packed_rhs& rhs, const double* b, std::size_t inner,
                              kitchen::simd_level level, int n_threads) {
  parallel_for_chunks(rhs.n_strips(), 2.0 * inner * kitchen::gram_strip_width(level), n_threads,
                      [&](std::size_t begin, std::size_t end) { rhs.pack(b, begin, end); });
}

// a: rows x inner (column-major, leading dimension rows); B: inner x cols;
// res: leading dimension ld. False when a thread's buffer could not be
// allocated (the caller says so in an R error, on the main thread).
template <class AfterUnit>
bool packed_product_over_threads(const double* a, std::size_t rows, std::size_t inner,
                                 const kitchen::gemm_packed_rhs& rhs, std::size_t cols,
                                 kitchen::simd_level level, double* res, std::size_t ld,
                                 double unit_cost, int n_threads, AfterUnit after_unit) {
  std::atomic<bool> failed(false);
  parallel_for_chunks(kitchen::gemm_n_units(rows, rhs), unit_cost, n_threads,
                      [&](std::size_t begin, std::size_t end) {
    std::vector<double> lhs;
    try {
      lhs.resize(kitchen::gemm_lhs_size(level));
    } catch (...) {
      failed.store(true);
      return;
    }
    for (std::size_t i = begin; i < end; ++i) {
      const kitchen::gemm_unit u = kitchen::gemm_unit_at(i, rows, cols, rhs, level);
      kitchen::gemm_packed_product(a, rows, inner, rhs, cols, u, level, lhs.data(), res, ld);
      after_unit(u);
    }
  });
  return !failed.load();
}

}  // namespace kitchen_glue
