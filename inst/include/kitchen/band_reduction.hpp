// The first stage of a two-stage tridiagonal reduction, G = Q B Q' with B
// banded (band_width sub-diagonals), and ridge solves on the band form:
// (G + lambda I)^-1 c = Q (B + lambda I)^-1 Q' c, each lambda a banded
// Cholesky factor and two banded solves (O(n b^2)), instead of a reduction
// to tridiagonal form.
//
// Why: the one-stage reduction (tridiagonal.hpp) spends half of its work in
// symmetric matrix-vector products, one per column, each streaming the
// trailing matrix from memory: past the caches (D = 4096: 128 MB) it runs at
// memory speed. Here a panel of b columns is factored as a QR (Householder,
// LAPACK's dgeqr2 / dlarft) and the trailing matrix is updated two-sided
// with matrix products on the Z'Z micro-kernels: A V for all b reflectors
// at once reads the trailing matrix once per panel, then A -= Y V' + V Y'.
// The working copy is kept whole (both triangles) so that A V is a plain
// product; that costs 2 n^3 operations against 4/3 n^3, all at the
// kernels' speed.
//
// Panel p (columns p .. p + b) leaves its reflectors in the working copy's
// columns: v_c from row c + b (its leading 1 there), as reflector_blocks
// reads them with shift b; its R factor and the diagonal block go into the
// band. Work comes as ranges of independent units on the caller's
// `Parallel` (as in tridiagonal.hpp); bodies never allocate or throw.
// Needs the AVX2 or AVX-512 kernels (available()).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <vector>

#include "gemm_simd.hpp"
#include "gram_simd.hpp"
#include "reflector_blocks.hpp"
#include "simd.hpp"
#include "tridiagonal.hpp"

namespace kitchen {

// Sub-diagonals of B, and the panel width: one block of reflector_blocks,
// so that each panel's reflectors are applied as one block.
constexpr std::size_t band_width = reflector_block;
// Rows per block of the panel's small products (two columns of 48 x 256
// doubles each: 196 KB, in L2).
constexpr std::size_t band_rows = 256;

// Band storage of a symmetric matrix's lower band: entry (c + r, c) at
// band[r + c * (band_width + 1)], r = 0 .. band_width (zero past n).
inline std::size_t band_index(std::size_t row, std::size_t col) {
  return (row - col) + col * (band_width + 1);
}

#if KITCHEN_X86_SIMD

class band_reduction {
 public:
  // Allocate on the main thread; the working copy is filled by reduce_from().
  band_reduction(std::size_t n, simd_level level)
      : n_(n), level_(level), a_(new double[n * n]), band_((band_width + 1) * n, 0.0),
        tau_(n > band_width ? n - band_width : 0, 0.0),
        ts_((tau_.size() + band_width - 1) / band_width * band_width * band_width, 0.0) {}

  static bool available(simd_level level) { return reflector_blocks::available(level); }

  std::size_t size() const { return n_; }
  simd_level level() const { return level_; }
  const std::vector<double>& band() const { return band_; }
  // Q = H_0 ... H_{count-1}, H_c = I - tau_c v_c v_c', v_c in column c from
  // row c + band_width; count = tau().size().
  const double* reflectors() const { return a_.get(); }
  const std::vector<double>& tau() const { return tau_; }
  // Each panel's T, Q_p = I - V T V' (as reflector_blocks' blocks).
  const std::vector<double>& block_factors() const { return ts_; }

  // Reduces the symmetric matrix whose upper triangle entry(r, c) (r <= c)
  // gives, computed as it is read (as tridiagonal_reduction::reduce_from).
  template <class Parallel, class Entry>
  void reduce_from(Parallel& parallel, Entry entry) {
    if (level_ == simd_level::avx512) {
      reduce<detail::gram_avx512>(parallel, entry);
    } else {
      reduce<detail::gram_avx2>(parallel, entry);
    }
  }

 private:
  std::size_t n_;
  simd_level level_;
  std::unique_ptr<double[]> a_;
  std::vector<double> band_, tau_;
  std::vector<double> ts_;  // each panel's T (band_width^2, column-major)

  double* col(std::size_t j) { return a_.get() + j * n_; }

  template <class Kernel, class Parallel, class Entry>
  void reduce(Parallel& parallel, Entry& entry) {
    using namespace tridiag_detail;
    const std::size_t n = n_, b = band_width;
    if (n == 0) return;
    load_symmetric(parallel, entry, n, a_.get(), true);  // both triangles
    // V (explicit zeros and ones), A V (then X = A V T) and Y: m x b each
    // (column stride m); V'V, V'AV, V'X and T'V'X / 2: b x b.
    std::vector<double> v(n * b), av(n * b), y(n * b), vv(b * b), vav(b * b), vx(b * b),
        tvx(b * b);
    const std::size_t width = Kernel::mr;
    const std::size_t packed = (n + width - 1) / width * width * 2 * b + 8;
    std::vector<double> packed_u(packed), packed_x(packed);
    const std::size_t n_units = (n + gemm_block_rows - 1) / gemm_block_rows;
    std::vector<double> lhs(n_units * gemm_lhs_size(level_));
    for (std::size_t p = 0; p < n; p += b) {
      const std::size_t nbe = std::min(b, n - p);
      for (std::size_t j = 0; j < nbe; ++j) {
        for (std::size_t i = j; i < nbe; ++i) band_[band_index(p + i, p + j)] = col(p + j)[p + i];
      }
      const std::size_t s = p + nbe;
      if (s >= n) break;
      // nbe == b from here: only the last panel can be narrower.
      const std::size_t m = n - s, kr = std::min(b, m);
      panel_qr(p, s, m, kr);
      for (std::size_t j = 0; j < b; ++j) {
        for (std::size_t i = 0; i <= std::min(j, m - 1); ++i) {
          band_[band_index(s + i, p + j)] = col(p + j)[s + i];
        }
      }
      // V, explicit.
      for (std::size_t j = 0; j < b; ++j) {
        double* vj = v.data() + j * m;
        const double* aj = col(p + j) + s;
        for (std::size_t i = 0; i < m; ++i) {
          vj[i] = j >= kr || i < j ? 0.0 : i == j ? 1.0 : aj[i];
        }
      }
      // A V for the trailing matrix A = A[s:n, s:n].
      gemm_packed_rhs rhs(m, b, level_);
      rhs.pack(v.data(), 0, rhs.n_strips());
      const double* a22 = col(s) + s;
      const std::size_t units = (m + gemm_block_rows - 1) / gemm_block_rows;
      parallel(units, 2.0 * gemm_block_rows * m * b, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) {
          const std::size_t r0 = u * gemm_block_rows;
          detail::gemm_packed_unit<Kernel>(a22, n, m, rhs, b, r0,
                                           std::min(gemm_block_rows, m - r0), 0,
                                           rhs.n_strips(), lhs.data() + u * gemm_lhs_size(level_),
                                           av.data(), m);
        }
      });
      // S = V'V and M = V'(A V), by blocks of rows that stay in cache.
      std::fill(vv.begin(), vv.end(), 0.0);
      std::fill(vav.begin(), vav.end(), 0.0);
      for (std::size_t r0 = 0; r0 < m; r0 += band_rows) {
        const std::size_t rows = std::min(band_rows, m - r0);
        for (std::size_t j = 0; j < b; ++j) {
          const double* vj = v.data() + j * m + r0;
          const double* avj = av.data() + j * m + r0;
          for (std::size_t i = 0; i < b; ++i) {
            const double* vi = v.data() + i * m + r0;
            if (i < j) vv[i + j * b] += dot(vi, vj, rows, level_);
            vav[i + j * b] += dot(vi, avj, rows, level_);
          }
        }
      }
      // T with Q_p = I - V T V' (dlarft, forward, columnwise), kept for
      // reflector_blocks: T[0:j, j] = -tau_j T[0:j, 0:j] S[0:j, j].
      double* t = ts_.data() + (p / b) * b * b;
      for (std::size_t j = 0; j < kr; ++j) {
        const double tau = tau_[p + j];
        for (std::size_t i = 0; i < j; ++i) {
          double sum = 0.0;
          for (std::size_t q = i; q < j; ++q) sum += t[i + q * b] * vv[q + j * b];
          t[i + j * b] = -tau * sum;
        }
        t[j + j * b] = tau;
      }
      // With X = A V T: V'X = M T, and C = T' (V'X) / 2.
      for (std::size_t j = 0; j < b; ++j) {
        for (std::size_t i = 0; i < b; ++i) {
          double sum = 0.0;
          for (std::size_t q = 0; q <= j; ++q) sum += vav[i + q * b] * t[q + j * b];
          vx[i + j * b] = sum;
        }
      }
      for (std::size_t j = 0; j < b; ++j) {
        for (std::size_t i = 0; i < b; ++i) {
          double sum = 0.0;
          for (std::size_t q = 0; q <= i; ++q) sum += t[q + i * b] * vx[q + j * b];
          tvx[i + j * b] = 0.5 * sum;
        }
      }
      // Y = X - V C, X = (A V) T, by blocks of rows (T upper triangular:
      // column j of X from columns <= j of A V, in place from the last).
      parallel(units, 3.0 * gemm_block_rows * b * b, [&](std::size_t begin, std::size_t end) {
        for (std::size_t u = begin; u < end; ++u) {
          const std::size_t r0 = u * gemm_block_rows, rows = std::min(gemm_block_rows, m - r0);
          for (std::size_t j = b; j-- > 0;) {
            double* xj = av.data() + j * m + r0;
            const double tjj = t[j + j * b];
            for (std::size_t i = 0; i < rows; ++i) xj[i] *= tjj;
            for (std::size_t q = 0; q < j; ++q) {
              if (t[q + j * b] != 0.0) axpy(t[q + j * b], av.data() + q * m + r0, xj, rows, level_);
            }
          }
          for (std::size_t j = 0; j < b; ++j) {
            double* yj = y.data() + j * m + r0;
            std::copy(av.data() + j * m + r0, av.data() + j * m + r0 + rows, yj);
            for (std::size_t q = 0; q < b; ++q) {
              if (tvx[q + j * b] != 0.0) {
                axpy(-tvx[q + j * b], v.data() + q * m + r0, yj, rows, level_);
              }
            }
          }
        }
      });
      // A -= Y V' + V Y', both triangles.
      rank2k_packed<Kernel>(parallel, col(s) + s, n, m, v.data(), m, y.data(), m, b, true,
                            packed_u.data(), packed_x.data());
    }
  }

  // Householder QR (dgeqr2) of the m x b block A[s:n, p:p + b]: kr
  // reflectors, R in its upper triangle, v_j below row j.
  void panel_qr(std::size_t p, std::size_t s, std::size_t m, std::size_t kr) {
    using namespace tridiag_detail;
    const std::size_t b = band_width;
    for (std::size_t j = 0; j < kr; ++j) {
      double* cj = col(p + j) + s;
      double tau = 0.0;
      const double beta = householder(cj[j], cj + j + 1, m - j - 1, tau, level_);
      tau_[p + j] = tau;
      for (std::size_t c = j + 1; c < b; ++c) {
        double* other = col(p + c) + s;
        const double w = tau * (other[j] + dot(cj + j + 1, other + j + 1, m - j - 1, level_));
        other[j] -= w;
        axpy(-w, cj + j + 1, other + j + 1, m - j - 1, level_);
      }
      cj[j] = beta;
    }
  }
};

#endif  // KITCHEN_X86_SIMD

// The lower Cholesky factor of B + lambda I in band storage (l, as band):
// false when a pivot is not positive (B + lambda I not positive definite
// to working precision). O(n b^2).
inline bool band_cholesky(const double* band, std::size_t n, double lambda, double* l) {
  constexpr std::size_t b = band_width, ld = band_width + 1;
  std::copy(band, band + ld * n, l);
  for (std::size_t j = 0; j < n; ++j) l[j * ld] += lambda;
  for (std::size_t j = 0; j < n; ++j) {
    double* cj = l + j * ld;
    if (!(cj[0] > 0.0) || !std::isfinite(cj[0])) return false;
    const double d = std::sqrt(cj[0]);
    cj[0] = d;
    const std::size_t len = std::min(b, n - 1 - j);
    for (std::size_t r = 1; r <= len; ++r) cj[r] /= d;
    for (std::size_t c = 1; c <= len; ++c) {
      double* cc = l + (j + c) * ld;
      const double f = cj[c];
      for (std::size_t r = c; r <= len; ++r) cc[r - c] -= cj[r] * f;
    }
  }
  return true;
}

// x = (L L')^-1 x for the factor of band_cholesky(), in place.
inline void band_cholesky_solve(const double* l, std::size_t n, double* x) {
  constexpr std::size_t b = band_width, ld = band_width + 1;
  for (std::size_t j = 0; j < n; ++j) {
    const double* cj = l + j * ld;
    const double xj = x[j] / cj[0];
    x[j] = xj;
    const std::size_t len = std::min(b, n - 1 - j);
    for (std::size_t r = 1; r <= len; ++r) x[j + r] -= cj[r] * xj;
  }
  for (std::size_t j = n; j-- > 0;) {
    const double* cj = l + j * ld;
    const std::size_t len = std::min(b, n - 1 - j);
    double sum = x[j];
    for (std::size_t r = 1; r <= len; ++r) sum -= cj[r] * x[j + r];
    x[j] = sum / cj[0];
  }
}

// The trace of (L L')^-1 for the factor of band_cholesky(): the inverse's
// band (z, band storage as l) by the Takahashi recurrence, from the last
// column back: for i >= j, Z[i, j] = (delta_ij / L[j, j] - sum_k Z[i, k]
// L[k, j]) / L[j, j] over k = j + 1 .. j + b, entries all inside the band
// and already made. O(n b^2).
inline double band_inverse_trace(const double* l, std::size_t n, double* z) {
  constexpr std::size_t b = band_width, ld = band_width + 1;
  double trace = 0.0;
  for (std::size_t j = n; j-- > 0;) {
    const double* cj = l + j * ld;
    const std::size_t len = std::min(b, n - 1 - j);
    const double inv = 1.0 / cj[0];
    for (std::size_t r = 1; r <= len; ++r) {
      // Z[j + r, j + q] is stored in the column of the smaller index
      double sum = 0.0;
      for (std::size_t q = 1; q < r; ++q) sum += z[(r - q) + (j + q) * ld] * cj[q];
      for (std::size_t q = r; q <= len; ++q) sum += z[(q - r) + (j + r) * ld] * cj[q];
      z[r + j * ld] = -inv * sum;
    }
    double sum = 0.0;
    for (std::size_t q = 1; q <= len; ++q) sum += z[q + j * ld] * cj[q];
    z[j * ld] = inv * (inv - sum);
    trace += z[j * ld];
  }
  return trace;
}

}  // namespace kitchen
