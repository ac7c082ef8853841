// Accumulating the Gram matrix G += Z'Z of a block of feature rows.
//
// G is split into fixed panels of columns; each panel is an independent
// product, so panels can go to different threads and every entry is computed
// the same way whatever the number of threads. Only the upper triangle is
// computed (panel j holds rows 0 .. end of column range j); gram_symmetric_copy
// (gram_finish.hpp) copies it to the lower triangle at the end.
//
// Two ways to fill a panel: Eigen on all rows of Z (SSE2 under R's flags,
// the portable path), or AVX-512 / AVX2 micro-kernels on blocks of rows
// packed once for all panels (gram_simd.hpp).
#pragma once

#include <algorithm>
#include <cstddef>

#include "eigen.hpp"

#include "gram_simd.hpp"
#include "simd.hpp"

namespace kitchen {

constexpr std::size_t gram_panel_width = 128;

inline std::size_t gram_n_panels(std::size_t dim) {
  return (dim + gram_panel_width - 1) / gram_panel_width;
}

// G[0:end, begin:end] += Z[:, 0:end]' Z[:, begin:end] for panel p, where Z
// is rows x dim (column stride ld_z) and G is dim x dim, column-major.
inline void gram_panel_update(const double* z, std::size_t rows, std::size_t ld_z,
                              std::size_t dim, std::size_t panel, double* g) {
  using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
  using Stride = Eigen::OuterStride<>;
  const std::size_t begin = panel * gram_panel_width;
  const std::size_t end = std::min(dim, begin + gram_panel_width);
  const Eigen::Index r = static_cast<Eigen::Index>(rows);
  Eigen::Map<const Matrix, 0, Stride> left(z, r, static_cast<Eigen::Index>(end), Stride(ld_z));
  Eigen::Map<const Matrix, 0, Stride> right(z + begin * ld_z, r,
                                            static_cast<Eigen::Index>(end - begin), Stride(ld_z));
  Eigen::Map<Matrix, 0, Stride> out(g + begin * dim, static_cast<Eigen::Index>(end),
                                    static_cast<Eigen::Index>(end - begin), Stride(dim));
  out.noalias() += left.transpose() * right;
}

// G[0:end, begin:end] (column stride ldg) += left' right[:, begin:end] for
// panel p, left and right two packings (gram_pack_strips()) of blocks of kc
// rows with dim columns, on `level` (avx2 or avx512, already resolved
// against the CPU). Entries below the diagonal may be updated too.
inline void gram_packed_panel_pair_update(const double* left, const double* right, std::size_t kc,
                                          std::size_t dim, std::size_t ldg, std::size_t panel,
                                          double* g, simd_level level) {
  const std::size_t begin = panel * gram_panel_width;
  const std::size_t end = std::min(dim, begin + gram_panel_width);
#if KITCHEN_X86_SIMD
  static_assert(gram_panel_width % detail::gram_avx512::nr == 0 &&
                    gram_panel_width % detail::gram_avx2::nr == 0,
                "panels must start on a tile boundary");
  if (level == simd_level::avx512) {
    detail::gram_packed_panel_pair<detail::gram_avx512>(left, right, kc, dim, ldg, begin, end, g);
  } else if (level == simd_level::avx2) {
    detail::gram_packed_panel_pair<detail::gram_avx2>(left, right, kc, dim, ldg, begin, end, g);
  }
#else
  (void)left, (void)right, (void)kc, (void)ldg, (void)begin, (void)end, (void)g, (void)level;
#endif
}

// The panel update of G += Z'Z (dim x dim) for one block of kc rows of Z
// packed by gram_pack_strips().
inline void gram_packed_panel_update(const double* packed, std::size_t kc, std::size_t dim,
                                     std::size_t panel, double* g, simd_level level) {
  gram_packed_panel_pair_update(packed, packed, kc, dim, dim, panel, g, level);
}

}  // namespace kitchen
