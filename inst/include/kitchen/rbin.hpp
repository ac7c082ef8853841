// Random binning features (Rahimi & Recht 2007, section 4) on raw memory.
//
// Grid g cuts dimension j into bins of pitch delta_gj shifted by u_gj; a
// rescaled input value v = (x - center_j) / scale_j falls in bin
// ceil((v - u_gj) / delta_gj). With a_gj = 1 / (scale_j delta_gj) and
// b_gj = center_j a_gj + u_gj / delta_gj that is ceil(x a_gj - b_gj), one
// multiply and one subtract per value (never fused, so every machine and
// every code path finds the same bin; see rbin_terms.hpp).
//
// A row's bin in grid g is identified by a 64-bit key: the sum over j of
// its bin index times a fixed odd constant R_j (mod 2^64), passed through
// a bijective mixer so keys are uniform over 64 bits. Sums commute, so the
// order in which values are added (dense by blocks, sparse by columns)
// never changes a key. Two distinct bins share a key with probability
// about 2^-64.
//
// The map keeps, per grid, the sorted distinct keys seen in the training
// data; a bin's column is its rank in that list (offset by the columns of
// earlier grids). A lookup table (bin_index) built from the sorted keys
// finds a key with about two comparisons, because the keys are uniform.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "rbin_terms.hpp"
#include "simd.hpp"

namespace kitchen {

// splitmix64's finaliser: a bijection of 64-bit words that spreads every
// input bit over the output.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The fixed odd constant that multiplies dimension j's bin index.
inline std::uint64_t rbin_dimension_constant(std::size_t j) {
  return mix64(0x9e3779b97f4a7c15ULL * (static_cast<std::uint64_t>(j) + 1)) | 1ULL;
}

// The affine forms of the bins: a and b are d x P (column g = grid g).
inline void rbin_affine(const double* pitch, const double* shift, const double* center,
                        const double* scale, std::size_t d, std::size_t n_grids, double* a,
                        double* b) {
  for (std::size_t g = 0; g < n_grids; ++g) {
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t k = g * d + j;
      // a column spanning near the largest double: its bin width overflows,
      // so divide twice (1 / Inf merged every row into one bin)
      const double width = scale[j] * pitch[k];
      a[k] = std::isfinite(width) ? 1.0 / width : (1.0 / scale[j]) / pitch[k];
      b[k] = unfused(center[j] * a[k]) + shift[k] / pitch[k];  // never fused (simd.hpp)
    }
  }
}

struct rbin_grids {
  std::size_t d, n_grids;
  const double* a;  // d x n_grids
  const double* b;  // d x n_grids
};

// Unmixed key sums for rows [row_begin, row_end) of a dense column-major
// n x d matrix (column stride ld), added into sums (n_grids x ld_sums,
// grid-major: sums[g * ld_sums + i]), which the caller zeroes first. Rows
// go in small blocks so the inner loop runs down contiguous memory.
inline void rbin_key_sums_dense(const rbin_grids& grids, const double* x, std::size_t ld,
                                std::size_t row_begin, std::size_t row_end,
                                std::uint64_t* sums, std::size_t ld_sums, simd_level level) {
  const std::size_t block = 256;
  for (std::size_t r0 = row_begin; r0 < row_end; r0 += block) {
    const std::size_t r1 = std::min(row_end, r0 + block);
    for (std::size_t j = 0; j < grids.d; ++j) {
      const double* xj = x + j * ld;
      const std::uint64_t mult = rbin_dimension_constant(j);
      for (std::size_t g = 0; g < grids.n_grids; ++g) {
        const double a = grids.a[g * grids.d + j], b = grids.b[g * grids.d + j];
        rbin_add_terms(xj + r0, r1 - r0, a, b, mult, sums + g * ld_sums + r0, level);
      }
    }
  }
}

// The same for grids [g_begin, g_end) of all n rows of a sparse matrix held
// by columns (col_ptr, row_idx, val; 0-based): every row starts from the
// key sum of an all-zero row, and each non-zero replaces its dimension's
// term for a zero by its own.
inline void rbin_key_sums_sparse(const rbin_grids& grids, const int* col_ptr, const int* row_idx,
                                 const double* val, std::size_t n, std::size_t g_begin,
                                 std::size_t g_end, std::uint64_t* sums, std::size_t ld_sums) {
  for (std::size_t g = g_begin; g < g_end; ++g) {
    const double* a = grids.a + g * grids.d;
    const double* b = grids.b + g * grids.d;
    std::uint64_t zero_row = 0;
    for (std::size_t j = 0; j < grids.d; ++j) {
      zero_row += static_cast<std::uint64_t>(rbin_bin(0.0, a[j], b[j])) * rbin_dimension_constant(j);
    }
    std::uint64_t* s = sums + g * ld_sums;
    std::fill(s, s + n, zero_row);
    for (std::size_t j = 0; j < grids.d; ++j) {
      const std::uint64_t mult = rbin_dimension_constant(j);
      const std::uint64_t zero_term = static_cast<std::uint64_t>(rbin_bin(0.0, a[j], b[j])) * mult;
      for (int k = col_ptr[j]; k < col_ptr[j + 1]; ++k) {
        const std::uint64_t term = static_cast<std::uint64_t>(rbin_bin(val[k], a[j], b[j])) * mult;
        s[row_idx[k]] += term - zero_term;
      }
    }
  }
}

// Key sums into keys, in place.
inline void rbin_finish_keys(std::uint64_t* keys, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) keys[i] = mix64(keys[i]);
}

// Sorts keys[0..n) (least significant digit radix sort, 11 bits a pass,
// with `scratch` of n words) and moves the distinct ones to the front;
// returns their number.
inline std::size_t rbin_distinct_keys(std::uint64_t* keys, std::size_t n,
                                      std::vector<std::uint64_t>& scratch) {
  const int bits = 11, n_passes = 6;
  const std::size_t radix = std::size_t(1) << bits;
  scratch.resize(n);
  std::vector<std::size_t> count(radix * n_passes, 0);
  for (std::size_t i = 0; i < n; ++i) {
    for (int pass = 0; pass < n_passes; ++pass) {
      ++count[pass * radix + ((keys[i] >> (pass * bits)) & (radix - 1))];
    }
  }
  std::uint64_t* from = keys;
  std::uint64_t* to = scratch.data();
  for (int pass = 0; pass < n_passes; ++pass) {
    std::size_t* c = count.data() + pass * radix;
    std::size_t sum = 0;
    for (std::size_t k = 0; k < radix; ++k) {
      const std::size_t here = c[k];
      c[k] = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i) to[c[(from[i] >> (pass * bits)) & (radix - 1)]++] = from[i];
    std::swap(from, to);
  }
  // An even number of passes leaves the sorted keys back in `keys`.
  return static_cast<std::size_t>(std::unique(keys, keys + n) - keys);
}

// Finds keys in one grid's sorted distinct keys. The keys are uniform, so
// bucketing them by their top bits (about two keys a bucket) leaves a
// short scan.
class bin_index {
 public:
  // keys: sorted, distinct (check with rbin_keys_sorted first).
  bin_index(const std::uint64_t* keys, std::size_t n) : keys_(keys), n_(n) {
    int bits = 1;
    while (bits < 30 && (std::size_t(1) << bits) < n / 2 + 1) ++bits;
    shift_ = 64 - bits;
    const std::size_t n_buckets = std::size_t(1) << bits;
    start_.assign(n_buckets + 1, 0);
    std::size_t k = 0;
    for (std::size_t bucket = 0; bucket < n_buckets; ++bucket) {
      start_[bucket] = static_cast<std::uint32_t>(k);
      while (k < n && (keys[k] >> shift_) == bucket) ++k;
    }
    start_[n_buckets] = static_cast<std::uint32_t>(n);
  }

  // Rank of key among the keys, or -1 if absent.
  std::int64_t find(std::uint64_t key) const {
    const std::size_t bucket = static_cast<std::size_t>(key >> shift_);
    for (std::uint32_t k = start_[bucket]; k < start_[bucket + 1]; ++k) {
      if (keys_[k] == key) return k;
    }
    return -1;
  }

 private:
  const std::uint64_t* keys_;
  std::size_t n_;
  int shift_;
  std::vector<std::uint32_t> start_;
};

// True if keys[0..n) are strictly increasing (as a map must store them).
inline bool rbin_keys_sorted(const std::uint64_t* keys, std::size_t n) {
  for (std::size_t i = 1; i < n; ++i) {
    if (!(keys[i - 1] < keys[i])) return false;
  }
  return true;
}

}  // namespace kitchen
