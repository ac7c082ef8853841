// Random Fourier features (Rahimi & Recht 2007) for a block of rows.
//
// With P the d x m projection (frequencies already divided by the bandwidth
// and by each input column's scale) and o the m offsets (phases minus the
// centring, see rff_offset), the features of a row x are
//   cos_sin:   [cos(x P + o), sin(x P + o)] * sqrt(1 / m)   (2m features)
//   cos_phase:  cos(x P + o) * sqrt(2 / m)                  (m features)
// Centring and scaling of the inputs are folded into P and o, so the data
// are read as they are (dense or sparse) and no copy is made.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "eigen.hpp"

#include "simd.hpp"
#include "sincos.hpp"

namespace kitchen {

enum class rff_type : int { cos_sin = 0, cos_phase = 1 };

inline std::size_t rff_n_features(rff_type type, std::size_t m) {
  return type == rff_type::cos_sin ? 2 * m : m;
}

// o_k = phase_k - sum_j center_j P_jk: the offset that makes x P + o equal
// ((x - center) / scale) W / sigma + phase. `phase` may be null (zero).
// Every call pays this d x m pass (as much arithmetic as the features of one
// row), so columns go four at a time: one running sum alone waits on each
// addition's latency, four independent ones keep the adder busy. Each sum
// still adds its terms in order j = 0, 1, ..., so the bits are those of the
// one-column loop.
inline void rff_offset(const double* projection, std::size_t d, std::size_t m,
                       const double* center, const double* phase, double* offset) {
  std::size_t k = 0;
  for (; k + 4 <= m; k += 4) {
    const double* p0 = projection + k * d;
    const double* p1 = p0 + d;
    const double* p2 = p1 + d;
    const double* p3 = p2 + d;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      const double c = center[j];
      s0 += c * p0[j];
      s1 += c * p1[j];
      s2 += c * p2[j];
      s3 += c * p3[j];
    }
    const double* ph = phase ? phase + k : nullptr;
    offset[k] = (ph ? ph[0] : 0.0) - s0;
    offset[k + 1] = (ph ? ph[1] : 0.0) - s1;
    offset[k + 2] = (ph ? ph[2] : 0.0) - s2;
    offset[k + 3] = (ph ? ph[3] : 0.0) - s3;
  }
  for (; k < m; ++k) {
    const double* p = projection + k * d;
    double s = 0.0;
    for (std::size_t j = 0; j < d; ++j) s += center[j] * p[j];
    offset[k] = (phase ? phase[k] : 0.0) - s;
  }
}

// Turns the projections x P of rows [0, rows), held in output columns
// [k_begin, k_end) (column stride ld_out), into features, in place; for
// cos_sin the sines go to columns k + m. `level` (already resolved against
// the CPU) picks the cosine/sine kernels of sincos.hpp; results do not depend
// on rows or on how columns are split, only on the level.
inline void rff_nonlinearity(double* out, std::size_t rows, std::size_t ld_out, std::size_t m,
                             std::size_t k_begin, std::size_t k_end, const double* offset,
                             rff_type type, simd_level level) {
  const bool both = type == rff_type::cos_sin;
  const double scale = std::sqrt((both ? 1.0 : 2.0) / static_cast<double>(m));
  if (rows == ld_out && level != simd_level::scalar) {
    // Contiguous columns (all rows of a few-row result): one call over the
    // whole range instead of one per column, whose vectors would be mostly
    // tail for 8 to 64 rows (10 rows: 35 against 9 us). t + 0.0 gives the
    // bits of the column path's t + shift, as below: t is never -0.0, since
    // the SIMD products sum from +0.0.
    const std::size_t len = (k_end - k_begin) * rows;
    double* c = out + k_begin * ld_out;
    for (std::size_t k = k_begin; k < k_end; ++k) {
      double* col = out + k * ld_out;
      for (std::size_t i = 0; i < rows; ++i) col[i] = col[i] + offset[k];
    }
    if (both) {
      sincos_shift_scale(c, 0.0, scale, c, out + (k_begin + m) * ld_out, len, level);
    } else {
      cos_shift_scale(c, 0.0, scale, c, len, level);
    }
    return;
  }
  if (rows < 8) {
    // Few rows (a single prediction): one SIMD call per column would be all
    // overhead, so gather each row's arguments instead. t + 0.0 then gives
    // the same bits as the column path's t + shift.
    const std::size_t chunk = 256;
    double t[chunk], c[chunk], s[chunk];
    for (std::size_t i = 0; i < rows; ++i) {
      for (std::size_t k0 = k_begin; k0 < k_end; k0 += chunk) {
        const std::size_t len = std::min(chunk, k_end - k0);
        for (std::size_t j = 0; j < len; ++j) t[j] = out[i + (k0 + j) * ld_out] + offset[k0 + j];
        if (both) {
          sincos_shift_scale(t, 0.0, scale, c, s, len, level);
          for (std::size_t j = 0; j < len; ++j) out[i + (k0 + j + m) * ld_out] = s[j];
        } else {
          cos_shift_scale(t, 0.0, scale, c, len, level);
        }
        for (std::size_t j = 0; j < len; ++j) out[i + (k0 + j) * ld_out] = c[j];
      }
    }
    return;
  }
  for (std::size_t k = k_begin; k < k_end; ++k) {
    double* c = out + k * ld_out;
    if (both) {
      double* s = out + (k + m) * ld_out;
      sincos_shift_scale(c, offset[k], scale, c, s, rows, level);
    } else {
      cos_shift_scale(c, offset[k], scale, c, rows, level);
    }
  }
}

// Features of rows [0, rows) of a dense column-major x (column stride ld_x)
// into out (column stride ld_out), the product done by Eigen.
inline void rff_dense_block(const double* x, std::size_t rows, std::size_t ld_x, std::size_t d,
                            const double* projection, std::size_t m, const double* offset,
                            rff_type type, double* out, std::size_t ld_out, simd_level level) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  using Stride = Eigen::OuterStride<>;
  const Eigen::Index r = static_cast<Eigen::Index>(rows);
  Eigen::Map<const Matrix, 0, Stride> xb(x, r, static_cast<Eigen::Index>(d), Stride(ld_x));
  Eigen::Map<const Matrix> p(projection, static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(m));
  Eigen::Map<Matrix, 0, Stride> prod(out, r, static_cast<Eigen::Index>(m), Stride(ld_out));
  prod.noalias() = xb * p;
  rff_nonlinearity(out, rows, ld_out, m, 0, m, offset, type, level);
}

// Features k in [k_begin, k_end) of all n rows of a sparse CSC matrix
// (column pointers col_ptr, row indices row_idx, values val; d columns)
// into out (n rows, column-major). Each element accumulates over the input
// columns in increasing order, whatever the range, so results do not depend
// on how frequencies are split over threads.
inline void rff_sparse_columns(const int* col_ptr, const int* row_idx, const double* val,
                               std::size_t n, std::size_t d, const double* projection,
                               std::size_t m, const double* offset, rff_type type,
                               std::size_t k_begin, std::size_t k_end, double* out,
                               simd_level level) {
  for (std::size_t k = k_begin; k < k_end; ++k) {
    double* o = out + k * n;
    const double* p = projection + k * d;
    for (std::size_t i = 0; i < n; ++i) o[i] = 0.0;
    for (std::size_t j = 0; j < d; ++j) {
      const double w = p[j];
      for (int e = col_ptr[j]; e < col_ptr[j + 1]; ++e) o[row_idx[e]] += val[e] * w;
    }
  }
  rff_nonlinearity(out, n, n, m, k_begin, k_end, offset, type, level);
}

}  // namespace kitchen
