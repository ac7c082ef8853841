// Fastfood features (Le, Sarlos & Smola 2013) for a range of rows.
//
// Inputs are zero-padded from d to p (a power of two) coordinates. Block b
// of the implied frequency matrix is
//   V_b = 1 / (sigma sqrt(p)) S_b H G_b Pi_b H B_b        (p x p)
// with B_b random signs, Pi_b a permutation ((Pi v)_i = v[perm[i]]), G_b
// Gaussian, H the unnormalised Walsh-Hadamard transform and S_b the radial
// scaling; the blocks are stacked and cut after m rows. A row x costs
// O(m log p): per block two transforms and three diagonal passes, never a
// dense product. Each row is rescaled, (x - center) / scale, into a scratch
// buffer first, so dense and sparse inputs take the same path.
//
// The features are those of rff.hpp with projections x V' (phases added
// for cos_phase):
//   cos_sin:   [cos(x V'), sin(x V')] * sqrt(1 / m)   (2m features)
//   cos_phase:  cos(x V' + phase) * sqrt(2 / m)       (m features)
// A row's features depend only on that row, never on which rows share a
// call, so results are the same for any split over threads.
//
// Structured orthogonal random features (SORF; Yu, Suresh, Choromanski,
// Holtmann-Rice and Kumar 2016) take the same path with another block:
//   V_b = sqrt(p) / sigma (H/sqrt(p)) D1_b (H/sqrt(p)) D2_b (H/sqrt(p)) D3_b
//       = 1 / (sigma p) H D1_b H D2_b H D3_b
// with D1..D3 random sign diagonals: three transforms per block, no
// Gaussian, permutation or radial scaling, and every row of length
// sqrt(p) / sigma (each normalised factor is orthogonal).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "fwht.hpp"
#include "rff.hpp"
#include "simd.hpp"
#include "sincos.hpp"

namespace kitchen {

// The numbers drawn at construction, as views; block b of signs, perm and
// gauss is [b * p, (b + 1) * p).
struct fastfood_map {
  std::size_t d, p, m, n_blocks;
  bool sorf;                   // SORF blocks (then perm, gauss, radial are null)
  const unsigned char* signs;  // B: 1 for +1, 0 for -1 (SORF: D1, D2, D3 of each block, 3p per block)
  const int* perm;             // Pi: 1-based indices (R's convention)
  const double* gauss;         // G
  const double* radial;        // diagonal of S, m values: s_i / ||G_b||_F
  const double* phase;         // m phases for cos_phase, else null
  const double* center;        // d
  const double* scale;         // d
  double sigma;
  rff_type type;
  bool project_only;           // output x V' itself (m columns), no cos/sin

  std::size_t width() const { return project_only ? m : rff_n_features(type, m); }
};

// Why the map cannot be used (nullptr if it can): a size that would make
// the transforms read out of bounds, a permutation that is not one (out of
// range or repeated index within a block), a sign other than 0 or 1, or a
// number that is not finite (it would make every feature NaN). O(map size).
inline const char* fastfood_problem(const fastfood_map& map) {
  // A SORF map's shape is that of its signs (three columns per block).
  if (!is_power_of_two(map.p) || map.d > map.p || map.m == 0) {
    return map.sorf ? "{.field signs} must have a power of two >= {.field d} rows."
                    : "{.field gauss} must have a power of two >= {.field d} rows.";
  }
  const std::size_t n = map.p * map.n_blocks;
  if (map.m > n || map.m + map.p <= n) {  // the last block is used
    return map.sorf ? "{.field signs} must have three columns per block of frequencies in {.field n_features}."
                    : "{.field gauss} must have one column per block of frequencies in {.field n_features}.";
  }
  if (map.sorf) {
    for (std::size_t i = 0; i < 3 * n; ++i) {
      if (map.signs[i] > 1) return "{.field signs} must hold only 00 and 01.";
    }
  }
  std::vector<unsigned char> seen(map.sorf ? 0 : map.p);
  for (std::size_t b = 0; !map.sorf && b < map.n_blocks; ++b) {
    std::fill(seen.begin(), seen.end(), 0);
    for (std::size_t i = b * map.p; i < (b + 1) * map.p; ++i) {
      const int k = map.perm[i];
      if (k < 1 || static_cast<std::size_t>(k) > map.p || seen[k - 1]) {
        return "{.field perm} must hold a permutation of 1..p in each column.";
      }
      seen[k - 1] = 1;
      if (map.signs[i] > 1) return "{.field signs} must hold only 00 and 01.";
      if (!std::isfinite(map.gauss[i])) return "{.field gauss} must be finite.";
    }
  }
  for (std::size_t k = 0; k < map.m; ++k) {
    if (!map.sorf && !std::isfinite(map.radial[k])) return "{.field radial} must be finite.";
    if (map.phase && !std::isfinite(map.phase[k])) return "{.field phases} must be finite.";
  }
  for (std::size_t j = 0; j < map.d; ++j) {
    if (!std::isfinite(map.center[j])) return "{.field center} must be finite.";
    if (!(map.scale[j] > 0) || !std::isfinite(map.scale[j])) {
      return "{.field scale} must be positive and finite.";
    }
  }
  return nullptr;
}

// Row i of a dense column-major n x d matrix (column stride ld), rescaled
// into xs[0..d).
struct fastfood_dense_rows {
  const double* x;
  std::size_t ld;
  void load(const fastfood_map& map, std::size_t i, double* xs) const {
    const double* xi = x + i;
    for (std::size_t j = 0; j < map.d; ++j) xs[j] = (xi[j * ld] - map.center[j]) / map.scale[j];
  }
};

// Row i of a sparse matrix held by rows (compressed sparse rows: row_ptr,
// col_idx, val), rescaled into xs[0..d). `base` holds -center / scale, the
// rescaled value of a zero.
struct fastfood_sparse_rows {
  const int* row_ptr;
  const int* col_idx;
  const double* val;
  const double* base;
  void load(const fastfood_map& map, std::size_t i, double* xs) const {
    for (std::size_t j = 0; j < map.d; ++j) xs[j] = base[j];
    for (int e = row_ptr[i]; e < row_ptr[i + 1]; ++e) {
      const int j = col_idx[e];
      xs[j] = (val[e] - map.center[j]) / map.scale[j];
    }
  }
};

// buf[i] *= +1 or -1 as signs[i] is 1 or 0.
inline void apply_signs(const unsigned char* signs, double* buf, std::size_t n) {
  // A product, not a branch: random signs would defeat branch prediction.
  for (std::size_t i = 0; i < n; ++i) buf[i] *= 2.0 * signs[i] - 1.0;
}

// SORF projections of one rescaled row (see the top of the file): per
// block, H D1 H D2 H D3 applied right to left, scaled by 1 / (sigma p).
inline void sorf_project(const fastfood_map& map, const double* xs, double* proj,
                         double* buf, simd_level level) {
  const std::size_t p = map.p;
  const double factor = 1.0 / (map.sigma * static_cast<double>(p));
  const double* phase = map.project_only ? nullptr : map.phase;
  for (std::size_t b = 0; b < map.n_blocks; ++b) {
    const unsigned char* d1 = map.signs + 3 * b * p;
    const unsigned char* d3 = d1 + 2 * p;
    for (std::size_t j = 0; j < map.d; ++j) buf[j] = (2.0 * d3[j] - 1.0) * xs[j];
    for (std::size_t j = map.d; j < p; ++j) buf[j] = 0.0;
    fwht(buf, p, level);
    apply_signs(d1 + p, buf, p);  // D2
    fwht(buf, p, level);
    apply_signs(d1, buf, p);
    fwht(buf, p, level);
    const std::size_t k0 = b * p;
    const std::size_t len = (map.m - k0 < p) ? map.m - k0 : p;
    double* out = proj + k0;
    if (phase) {
      for (std::size_t i = 0; i < len; ++i) out[i] = buf[i] * factor + phase[k0 + i];
    } else {
      for (std::size_t i = 0; i < len; ++i) out[i] = buf[i] * factor;
    }
  }
}

// Projections x V' of one rescaled row xs[0..d) into proj[0..m), phases
// added for cos_phase. buf and tmp are scratch of p doubles each.
inline void fastfood_project(const fastfood_map& map, const double* xs, double* proj,
                             double* buf, double* tmp, simd_level level) {
  if (map.sorf) return sorf_project(map, xs, proj, buf, level);
  const std::size_t p = map.p;
  const double factor = 1.0 / (map.sigma * std::sqrt(static_cast<double>(p)));
  const double* phase = map.project_only ? nullptr : map.phase;
  for (std::size_t b = 0; b < map.n_blocks; ++b) {
    const unsigned char* signs = map.signs + b * p;
    const int* perm = map.perm + b * p;
    const double* gauss = map.gauss + b * p;
    // A product, not a branch: random signs would defeat branch prediction.
    for (std::size_t j = 0; j < map.d; ++j) buf[j] = (2.0 * signs[j] - 1.0) * xs[j];
    for (std::size_t j = map.d; j < p; ++j) buf[j] = 0.0;
    fwht(buf, p, level);
    for (std::size_t i = 0; i < p; ++i) tmp[i] = gauss[i] * buf[perm[i] - 1];
    fwht(tmp, p, level);
    // The last block is cut after m rows in all.
    const std::size_t k0 = b * p;
    const std::size_t len = (map.m - k0 < p) ? map.m - k0 : p;
    const double* s = map.radial + k0;
    double* out = proj + k0;
    if (phase) {
      for (std::size_t i = 0; i < len; ++i) out[i] = tmp[i] * s[i] * factor + phase[k0 + i];
    } else {
      for (std::size_t i = 0; i < len; ++i) out[i] = tmp[i] * s[i] * factor;
    }
  }
}

// Features of one row, in place: proj[0..m) (from fastfood_project) becomes
// the row's map.width() features. proj must have room for all of them.
inline void fastfood_nonlinearity(const fastfood_map& map, double* proj, simd_level level) {
  if (map.project_only) return;
  const double m = static_cast<double>(map.m);
  if (map.type == rff_type::cos_sin) {
    sincos_shift_scale(proj, 0.0, std::sqrt(1.0 / m), proj, proj + map.m, map.m, level);
  } else {
    cos_shift_scale(proj, 0.0, std::sqrt(2.0 / m), proj, map.m, level);
  }
}

// Rows gathered per pass: their features are computed row-major in scratch
// and then copied to the column-major result, so that each column of the
// result is written a whole cache line (8 rows) at a time.
constexpr std::size_t fastfood_block_rows = 8;

// Features of rows [r_begin, r_end) of `rows` (fastfood_dense_rows or
// fastfood_sparse_rows) into out, column-major with column stride ld_out
// (row i goes to out[i + k * ld_out]). With ld_out == 1 (a single row in
// all) the features are computed straight into out. Allocates its scratch:
// call from a try block when running on a worker thread.
template <class Rows>
void fastfood_rows(const fastfood_map& map, const Rows& rows, std::size_t r_begin,
                   std::size_t r_end, double* out, std::size_t ld_out, simd_level level) {
  const std::size_t width = map.width();
  const bool direct = ld_out == 1;
  std::vector<double> scratch(3 * map.p + (direct ? 0 : fastfood_block_rows * width));
  double* xs = scratch.data();
  double* buf = xs + map.p;
  double* tmp = buf + map.p;
  double* block = tmp + map.p;
  for (std::size_t r0 = r_begin; r0 < r_end; r0 += fastfood_block_rows) {
    const std::size_t n_rows = std::min(fastfood_block_rows, r_end - r0);
    for (std::size_t r = 0; r < n_rows; ++r) {
      double* feat = direct ? out + r0 + r : block + r * width;
      rows.load(map, r0 + r, xs);
      fastfood_project(map, xs, feat, buf, tmp, level);
      fastfood_nonlinearity(map, feat, level);
    }
    if (direct) continue;
    for (std::size_t k = 0; k < width; ++k) {
      double* col = out + r0 + k * ld_out;
      for (std::size_t r = 0; r < n_rows; ++r) col[r] = block[r * width + k];
    }
  }
}

}  // namespace kitchen
