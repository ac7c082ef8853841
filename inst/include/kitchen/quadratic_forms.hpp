// P = G W for a symmetric G (dim x dim) and W (dim x m) on the packed
// AVX-512 / AVX2 micro-kernels of gram_simd.hpp: the products behind the
// K-fold CV's quadratic forms w_c' G w_c (one per column of W: lambdas x
// responses, about 1,300 on a 26-class problem with 50 lambdas), where the
// column-at-a-time product of fold_algebra.hpp (dgemm's order, exact to
// R's) ran at memory speed.
//
// W is packed once into strips of Kernel::mr columns (all of it: as large as
// P). A unit of work is unit_rows rows of P for a range of strips: for each
// depth block it packs those rows of G (G' = G, so each is read down a
// column) and multiplies them into each strip of the range. Each entry of P
// is a sum over depth blocks, in order, of one micro-kernel chain each: the
// blocking depends only on dim, so results do not depend on the threads,
// the ranges or on m. They differ from fold_algebra.hpp's product in rounding only.
// Bodies never allocate or throw.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "gram_simd.hpp"
#include "simd.hpp"

namespace kitchen {

// Rows of G per packed depth block.
constexpr std::size_t quadratic_depth = 256;

#if KITCHEN_X86_SIMD

template <class Kernel>
class symmetric_product {
 public:
  // Rows of P per unit: eight strips (their packed depth block, 384 KB with
  // AVX-512, stays in L2 while each strip of W serves all eight).
  static constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr, kd = quadratic_depth,
                               unit_rows = 8 * mr;

  // Allocate on the main thread.
  symmetric_product(std::size_t dim, std::size_t m)
      : dim_(dim), m_(m), strips_((m + mr - 1) / mr), packed_w_(strips_ * mr * dim + 8),
        packed_g_(n_units() * (unit_rows * kd + 8)) {}

  std::size_t n_units() const { return (dim_ + unit_rows - 1) / unit_rows; }
  std::size_t n_strips() const { return strips_; }

  // Strips [begin, end) of W (dim x m, column-major) packed.
  void pack_w(const double* w, std::size_t begin, std::size_t end) {
    double* out = align64(packed_w_.data());
    for (std::size_t s = begin; s < end; ++s) {
      double* strip = out + s * dim_ * mr;
      for (std::size_t j = 0; j < mr; ++j) {
        const std::size_t c = s * mr + j;
        if (c < m_) {
          const double* col = w + c * dim_;
          for (std::size_t k = 0; k < dim_; ++k) strip[k * mr + j] = col[k];
        } else {
          for (std::size_t k = 0; k < dim_; ++k) strip[k * mr + j] = 0.0;
        }
      }
    }
  }

  // Rows of unit u of p += G W (p: dim x m, column-major) for the columns of
  // strips [s_begin, s_end), after pack_w() of those strips. Each entry of P
  // gets the same chain of kernel calls whatever the strips passed, so
  // callers may split the columns (to bound the work between interrupt
  // checks) without changing results. Units running at once must differ
  // (each has its packing buffer).
  void multiply_unit(const double* g, std::size_t u, double* p, std::size_t s_begin,
                     std::size_t s_end) {
    const std::size_t i0 = u * unit_rows, rows = std::min(unit_rows, dim_ - i0);
    const std::size_t row_strips = (rows + mr - 1) / mr;
    double* a = align64(packed_g_.data() + u * (unit_rows * kd + 8));
    const double* pw = align64(packed_w_.data());
    for (std::size_t k0 = 0; k0 < dim_; k0 += kd) {
      const std::size_t kc = std::min(kd, dim_ - k0);
      // a[strip][k * mr + i] = G[k0 + k, i0 + i] = G[i0 + i, k0 + k]
      for (std::size_t i = 0; i < row_strips * mr; ++i) {
        double* out = a + (i / mr) * kd * mr + i % mr;
        if (i < rows) {
          const double* col = g + (i0 + i) * dim_ + k0;
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = col[k];
        } else {
          for (std::size_t k = 0; k < kc; ++k) out[k * mr] = 0.0;
        }
      }
      for (std::size_t s = s_begin; s < s_end; ++s) {
        const double* b = pw + s * dim_ * mr + k0 * mr;
        for (std::size_t r = 0; r < row_strips; ++r) {
          const std::size_t ni = std::min(mr, rows - r * mr);
          for (std::size_t j = s * mr; j < std::min(m_, (s + 1) * mr); j += nr) {
            detail::kernel_tile<Kernel>(kc, a + r * kd * mr, b + j % mr,
                                        p + i0 + r * mr + j * dim_, dim_, ni,
                                        std::min(nr, m_ - j));
          }
        }
      }
    }
  }

 private:
  std::size_t dim_, m_, strips_;
  std::vector<double> packed_w_, packed_g_;
};

#endif  // KITCHEN_X86_SIMD

}  // namespace kitchen
