// Householder reflectors applied to many columns at once, by blocks (the
// compact WY form of LAPACK's dlarft / dlarfb): the product of reflector_block
// consecutive reflectors H_j0 ... H_j1-1 is I - V T V', with V their vectors
// side by side and T upper triangular, so that applying the block to C is
// two matrix products, W = T V' C (or T' V' C) and C -= V W, on the packed
// AVX-512 / AVX2 micro-kernels of gram_simd.hpp, instead of one pass over C
// per reflector (a dot product and an axpy per column: memory-bound, and at
// D = 4096 with 1,300 columns about 20 s per application).
//
// The reflectors are those of tridiagonal_reduction: H_j = I - tau_j v_j
// v_j' for j < count, with v_j in column j of an n x n matrix from row
// j + 1 (its leading 1 there); entries of that column above row j + 1 are
// ignored (the reduction leaves a diagonal entry and stale values there).
// band_reduction's start lower, from row j + shift (its own constructor).
//
// Work is by units of reflector_unit_columns columns of C: each column's
// arithmetic depends only on its own entries and on the reflectors (sums in
// an order fixed by n), so results do not depend on how many columns are
// passed, how they are grouped, or on the threads. They differ from
// one-reflector-at-a-time application in rounding only. Bodies never
// allocate or throw.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "gram_simd.hpp"
#include "simd.hpp"

namespace kitchen {

// Reflectors per block: a multiple of both kernels' strip widths (24, 12).
constexpr std::size_t reflector_block = 48;
// Rows of C packed at a time for V'C (a strip of 24 columns: 48 KB).
constexpr std::size_t reflector_depth = 256;
// Columns of C per unit of work.
constexpr std::size_t reflector_unit_columns = 96;

#if KITCHEN_X86_SIMD

class reflector_blocks {
 public:
  // a: n x n (column-major) holding v_j in column j from row j + 1; tau:
  // count factors. Computes every block's T (on the caller's Parallel, as
  // in tridiagonal.hpp); allocate on the main thread.
  template <class Parallel>
  reflector_blocks(Parallel& parallel, const double* a, std::size_t n, const double* tau,
                   std::size_t count, simd_level level)
      : a_(a), n_(n), tau_(tau), count_(count), level_(level), shift_(1),
        n_blocks_((count + reflector_block - 1) / reflector_block),
        t_(n_blocks_ * reflector_block * reflector_block, 0.0) {
    parallel(n_blocks_, 1.0 * reflector_block * reflector_block * n,
             [&](std::size_t begin, std::size_t end) {
      for (std::size_t b = begin; b < end; ++b) block_factor(b);
    });
  }

  // v_j from row j + shift instead (count + shift <= n), with every block's
  // T given (blocks of reflector_block reflectors, each T column-major and
  // upper triangular), as a reduction that made them passes them on.
  reflector_blocks(const double* a, std::size_t n, const double* tau, std::size_t count,
                   simd_level level, std::size_t shift, std::vector<double> t)
      : a_(a), n_(n), tau_(tau), count_(count), level_(level), shift_(shift),
        n_blocks_((count + reflector_block - 1) / reflector_block), t_(std::move(t)) {
    t_.resize(n_blocks_ * reflector_block * reflector_block, 0.0);
  }

  // Whether `level` has the kernels this needs (AVX2 or AVX-512).
  static bool available(simd_level level) {
    return level == simd_level::avx2 || level == simd_level::avx512;
  }

  std::size_t n_blocks() const { return n_blocks_; }

  // Doubles of workspace for m columns of C (allocate on the main thread).
  std::size_t workspace_size(std::size_t m) const {
    return n_units(m) * unit_workspace();
  }

  std::size_t n_units(std::size_t m) const {
    return (m + reflector_unit_columns - 1) / reflector_unit_columns;
  }

  // Step `step` of Q' C (transpose) or Q C, Q = H_0 ... H_{count-1}, for C
  // n x m (column stride ldc) in place: steps 0, 1, ... n_blocks() - 1 in
  // order make the whole product (block `step` for Q', the blocks in
  // reverse for Q). The caller may check for interrupts between steps.
  template <class Parallel>
  void apply_step(Parallel& parallel, std::size_t step, bool transpose, double* c,
                  std::size_t ldc, std::size_t m, double* workspace) const {
    const std::size_t b = transpose ? step : n_blocks_ - 1 - step;
    const std::size_t len = n_ - (b * reflector_block + shift_);
    const double cost = 4.0 * len * reflector_block * reflector_unit_columns;
    parallel(n_units(m), cost, [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) {
        const std::size_t c0 = u * reflector_unit_columns;
        const std::size_t uc = std::min(reflector_unit_columns, m - c0);
        double* ws = workspace + u * unit_workspace();
        if (level_ == simd_level::avx512) {
          apply_unit<detail::gram_avx512>(b, transpose, c + c0 * ldc, ldc, uc, ws);
        } else {
          apply_unit<detail::gram_avx2>(b, transpose, c + c0 * ldc, ldc, uc, ws);
        }
      }
    });
  }

  // All steps in a row (for callers that need no interrupt checks).
  template <class Parallel>
  void apply(Parallel& parallel, bool transpose, double* c, std::size_t ldc, std::size_t m) const {
    if (m == 0 || n_blocks_ == 0) return;
    std::vector<double> workspace(workspace_size(m));
    for (std::size_t s = 0; s < n_blocks_; ++s) {
      apply_step(parallel, s, transpose, c, ldc, m, workspace.data());
    }
  }

 private:
  const double* a_;
  std::size_t n_;
  const double* tau_;
  std::size_t count_;
  simd_level level_;
  std::size_t shift_;
  std::size_t n_blocks_;
  std::vector<double> t_;  // each block's T, reflector_block^2, column-major

  // Entry r of v_j (zero above row j + shift, one there).
  double v(std::size_t j, std::size_t r) const {
    return r < j + shift_ ? 0.0 : r == j + shift_ ? 1.0 : a_[r + j * n_];
  }

  // dlarft (forward, columnwise): T[q, q] = tau_q, T[0:q, q] = -tau_q
  // T[0:q, 0:q] V[:, 0:q]' v_q.
  void block_factor(std::size_t b) {
    constexpr std::size_t nb = reflector_block;
    const std::size_t j0 = b * nb, width = std::min(nb, count_ - j0);
    double* t = t_.data() + b * nb * nb;
    double s[nb];
    for (std::size_t q = 0; q < width; ++q) {
      const std::size_t jq = j0 + q;
      const double* vq = a_ + jq * n_;
      for (std::size_t i = 0; i < q; ++i) {
        // v_q is zero above row jq + shift and one there.
        const double* vi = a_ + (j0 + i) * n_;
        double s0 = vi[jq + shift_], s1 = 0.0, s2 = 0.0, s3 = 0.0;
        std::size_t r = jq + shift_ + 1;
        for (; r + 4 <= n_; r += 4) {
          s0 += vi[r] * vq[r];
          s1 += vi[r + 1] * vq[r + 1];
          s2 += vi[r + 2] * vq[r + 2];
          s3 += vi[r + 3] * vq[r + 3];
        }
        for (; r < n_; ++r) s0 += vi[r] * vq[r];
        s[i] = (s0 + s1) + (s2 + s3);
      }
      const double tau = tau_[jq];
      for (std::size_t i = 0; i < q; ++i) {
        double sum = 0.0;
        for (std::size_t p = i; p < q; ++p) sum += t[i + p * nb] * s[p];
        t[i + q * nb] = -tau * sum;
      }
      t[q + q * nb] = tau;
    }
  }

  static std::size_t unit_workspace() {
    constexpr std::size_t nb = reflector_block, uc = reflector_unit_columns;
    // W, packed W, packed V (depth block), packed C (depth block), packed
    // rows of -V, and room to align.
    return 2 * nb * uc + nb * reflector_depth + uc * reflector_depth + nb * 24 + 8;
  }

  // Block b applied to uc columns of c (stride ldc): W = V' C on rows
  // j0 + shift .. n, W = T W (Q) or T' W (Q'), C -= V W.
  template <class Kernel>
  void apply_unit(std::size_t b, bool transpose, double* c, std::size_t ldc, std::size_t uc,
                  double* ws) const {
    constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr, nb = reflector_block,
                          kd = reflector_depth, ucm = reflector_unit_columns;
    static_assert(nb % mr == 0 && ucm % mr == 0 && mr % nr == 0, "strips must tile the block");
    const std::size_t j0 = b * nb, width = std::min(nb, count_ - j0);
    const std::size_t r0 = j0 + shift_, len = n_ - r0;
    double* w = align64(ws);             // nb x ucm, column-major
    double* wp = w + nb * ucm;           // W in strips of mr columns (nb x mr each)
    double* vp = wp + nb * ucm;          // V rows of a depth block, strips of mr columns
    double* cp = vp + nb * kd;           // C rows of a depth block, strips of mr columns
    double* ap = cp + ucm * kd;          // -V rows of an mr strip (nb x mr)
    std::fill(w, w + nb * ucm, 0.0);
    const std::size_t c_strips = (uc + mr - 1) / mr;
    // W = V' C, depth block by depth block.
    for (std::size_t k0 = 0; k0 < len; k0 += kd) {
      const std::size_t kc = std::min(kd, len - k0);
      for (std::size_t q = 0; q < nb; ++q) {
        double* out = vp + (q / mr) * kd * mr + q % mr;
        if (q < width) {
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = v(j0 + q, r0 + k0 + k);
        } else {
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = 0.0;
        }
      }
      for (std::size_t j = 0; j < c_strips * mr; ++j) {
        double* out = cp + (j / mr) * kd * mr + j % mr;
        if (j < uc) {
          const double* in = c + j * ldc + r0 + k0;
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = in[k];
        } else {
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = 0.0;
        }
      }
      for (std::size_t s = 0; s < c_strips; ++s) {
        for (std::size_t i0 = 0; i0 < nb; i0 += mr) {
          for (std::size_t j = s * mr; j < std::min(uc, (s + 1) * mr); j += nr) {
            detail::kernel_tile<Kernel>(kc, vp + (i0 / mr) * kd * mr, cp + s * kd * mr + j % mr,
                                        w + i0 + j * nb, nb, mr, std::min(nr, uc - j));
          }
        }
      }
    }
    // W = T W or T' W, column by column in place.
    const double* t = t_.data() + b * nb * nb;
    for (std::size_t j = 0; j < uc; ++j) {
      double* wj = w + j * nb;
      if (transpose) {
        for (std::size_t i = width; i-- > 0;) {
          double sum = 0.0;
          for (std::size_t q = 0; q <= i; ++q) sum += t[q + i * nb] * wj[q];
          wj[i] = sum;
        }
      } else {
        for (std::size_t i = 0; i < width; ++i) {
          double sum = 0.0;
          for (std::size_t q = i; q < width; ++q) sum += t[i + q * nb] * wj[q];
          wj[i] = sum;
        }
      }
    }
    for (std::size_t j = 0; j < c_strips * mr; ++j) {
      double* out = wp + (j / mr) * nb * mr + j % mr;
      for (std::size_t q = 0; q < nb; ++q) out[q * mr] = j < uc ? w[q + j * nb] : 0.0;
    }
    // C -= V W, mr rows of C at a time.
    for (std::size_t i0 = 0; i0 < len; i0 += mr) {
      const std::size_t ni = std::min(mr, len - i0);
      for (std::size_t q = 0; q < nb; ++q) {
        double* out = ap + q * mr;
        for (std::size_t i = 0; i < mr; ++i) {
          out[i] = q < width && i < ni ? -v(j0 + q, r0 + i0 + i) : 0.0;
        }
      }
      for (std::size_t j = 0; j < uc; j += nr) {
        detail::kernel_tile<Kernel>(nb, ap, wp + (j / mr) * nb * mr + j % mr,
                                    c + r0 + i0 + j * ldc, ldc, ni, std::min(nr, uc - j));
      }
    }
  }
};

#endif  // KITCHEN_X86_SIMD

}  // namespace kitchen
