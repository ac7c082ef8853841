// Exact kernel matrices K[i, k] = k(x_i, y_k) for shift-invariant kernels.
//
// Plain C++17, no R headers. The work is cut into tiles (one column k of K,
// a block of rows i) that the caller may spread over threads in any order:
// each element is computed by the same code, summing over the coordinates
// j = 0 .. d-1 in order, so the result is bitwise identical for any split.
// Distances are summed directly, ((x_ij - y_kj) / sigma)^2, rather than
// through ||x||^2 + ||y||^2 - 2 x'y: no cancellation, and k(x, x) is exactly
// 1. Each difference is scaled by 1 / sigma before it is squared, so that
// neither the square of a large difference nor 1 / sigma^2 for a tiny sigma
// overflows (Inf * 0 or 0 * Inf would be NaN): a scaled sum that still
// overflows means a kernel value of exactly 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace kitchen {

// What a tile computes. The Matern kernels have closed forms for
// nu = 1/2, 3/2, 5/2; for other nu the caller asks for the Euclidean
// distance and applies the Bessel formula itself.
enum class kernel_kind {
  gaussian,   // exp(-||r||_2^2 / (2 sigma^2))
  laplacian,  // exp(-||r||_1 / sigma)
  cauchy,     // prod_j 1 / (1 + r_j^2 / sigma^2)
  matern12,   // exp(-t), t = ||r||_2 / sigma
  matern32,   // (1 + t) exp(-t), t = sqrt(3) ||r||_2 / sigma
  matern52,   // (1 + t + t^2 / 3) exp(-t), t = sqrt(5) ||r||_2 / sigma
  distance    // ||r||_2 / sigma
};

// The kind named `name` (as above); false if there is none.
inline bool kernel_kind_from_name(const std::string& name, kernel_kind& kind) {
  static const struct { const char* name; kernel_kind kind; } table[] = {
      {"gaussian", kernel_kind::gaussian}, {"laplacian", kernel_kind::laplacian},
      {"cauchy", kernel_kind::cauchy},     {"matern12", kernel_kind::matern12},
      {"matern32", kernel_kind::matern32}, {"matern52", kernel_kind::matern52},
      {"distance", kernel_kind::distance}};
  for (const auto& entry : table) {
    if (name == entry.name) {
      kind = entry.kind;
      return true;
    }
  }
  return false;
}

// A read-only rows x cols matrix of doubles with element (i, j) at
// data[i * row_stride + j * col_stride]: covers both layouts.
struct matrix_view {
  const double* data;
  std::size_t rows, cols, row_stride, col_stride;
  double operator()(std::size_t i, std::size_t j) const {
    return data[i * row_stride + j * col_stride];
  }
};

inline matrix_view column_major(const double* data, std::size_t rows, std::size_t cols) {
  return {data, rows, cols, 1, rows};
}

inline matrix_view row_major(const double* data, std::size_t rows, std::size_t cols) {
  return {data, rows, cols, cols, 1};
}

// Rows and columns per tile: the accumulators of a tile live on the stack.
// Several columns share each read of a block of x: with one column per
// tile, wide x (d in the thousands) was read from memory once per column
// of K.
constexpr std::size_t kernel_tile_rows = 256;
constexpr std::size_t kernel_tile_columns = 8;

namespace detail {

// How the coordinates of r = x_i - y_k are combined before the final map.
enum class accumulation { squared, absolute, product };

inline accumulation accumulation_of(kernel_kind kind) {
  switch (kind) {
    case kernel_kind::laplacian: return accumulation::absolute;
    case kernel_kind::cauchy: return accumulation::product;
    default: return accumulation::squared;
  }
}

// A difference divided by sigma: as a product by 1 / sigma when that is a
// normal number (the usual case, and cheaper), else as a division.
struct bandwidth_scaling {
  double sigma, inverse;
  bool multiply;
  explicit bandwidth_scaling(double s)
      : sigma(s), inverse(1.0 / s), multiply(std::isnormal(1.0 / s)) {}
  double operator()(double diff) const { return multiply ? diff * inverse : diff / sigma; }
};

// diff is already divided by sigma.
template <accumulation A>
inline double accumulate(double acc, double diff) {
  if constexpr (A == accumulation::squared) return acc + diff * diff;
  if constexpr (A == accumulation::absolute) return acc + std::fabs(diff);
  if constexpr (A == accumulation::product) return acc * (1.0 + diff * diff);
}

// acc[ii] updated by column j of x (xj, a whole tile of rows) against one
// coordinate ykj of y, the difference scaled by `inverse` (1 / sigma). The
// row count is known at compile time and the pointers do not alias, so the
// loop vectorizes at R's -O2, each lane doing the scalar loop's operations
// in its order (no fused multiply-add in the portable instruction set).
template <accumulation A>
inline void accumulate_whole_tile(double* __restrict__ acc, const double* __restrict__ xj,
                                  double ykj, double inverse) {
  for (std::size_t ii = 0; ii < kernel_tile_rows; ++ii) {
    acc[ii] = accumulate<A>(acc[ii], (xj[ii] - ykj) * inverse);
  }
}

// acc[c * kernel_tile_rows + ii] for rows row_begin + ii of x against row
// k_begin + c of y (c < columns).
template <accumulation A>
void accumulate_tile(const matrix_view& x, const matrix_view& y, std::size_t k_begin,
                     std::size_t columns, std::size_t row_begin, std::size_t len,
                     const bandwidth_scaling& scaled, double* acc) {
  const double init = A == accumulation::product ? 1.0 : 0.0;
  for (std::size_t c = 0; c < columns; ++c) {
    std::fill(acc + c * kernel_tile_rows, acc + c * kernel_tile_rows + len, init);
  }
  if (x.row_stride == 1 && len == kernel_tile_rows && scaled.multiply) {
    // As below, for a whole tile (all but the last of each column of K).
    for (std::size_t j = 0; j < x.cols; ++j) {
      const double* xj = x.data + j * x.col_stride + row_begin;
      for (std::size_t c = 0; c < columns; ++c) {
        accumulate_whole_tile<A>(acc + c * kernel_tile_rows, xj, y(k_begin + c, j),
                                 scaled.inverse);
      }
    }
  } else if (x.row_stride == 1) {
    // Column-major x: walk each column of x contiguously, updating all rows
    // and columns of the tile (each acc element still sums j in order, so
    // the bits do not depend on the tiling).
    for (std::size_t j = 0; j < x.cols; ++j) {
      const double* xj = x.data + j * x.col_stride + row_begin;
      for (std::size_t c = 0; c < columns; ++c) {
        const double ykj = y(k_begin + c, j);
        double* acc_c = acc + c * kernel_tile_rows;
        for (std::size_t ii = 0; ii < len; ++ii) {
          acc_c[ii] = accumulate<A>(acc_c[ii], scaled(xj[ii] - ykj));
        }
      }
    }
  } else {
    for (std::size_t c = 0; c < columns; ++c) {
      for (std::size_t ii = 0; ii < len; ++ii) {
        double a = init;
        for (std::size_t j = 0; j < x.cols; ++j) {
          a = accumulate<A>(a, scaled(x(row_begin + ii, j) - y(k_begin + c, j)));
        }
        acc[c * kernel_tile_rows + ii] = a;
      }
    }
  }
}

// (1 + t) exp(-t) and the like: 0 for t past where exp(-t) is 0, so that an
// infinite t gives 0, not Inf * 0.
inline double matern_tail(double polynomial, double t) {
  return t < 800.0 ? polynomial * std::exp(-t) : 0.0;
}

// The kernel value from the accumulated sum (or product) of scaled
// differences.
inline void finish_tile(kernel_kind kind, const double* acc, std::size_t len, double* out) {
  switch (kind) {
    case kernel_kind::gaussian:
      for (std::size_t ii = 0; ii < len; ++ii) out[ii] = std::exp(-0.5 * acc[ii]);
      break;
    case kernel_kind::laplacian:
      for (std::size_t ii = 0; ii < len; ++ii) out[ii] = std::exp(-acc[ii]);
      break;
    case kernel_kind::cauchy:
      // The product may overflow to Inf for large d; 1 / Inf = 0 is the limit.
      for (std::size_t ii = 0; ii < len; ++ii) out[ii] = 1.0 / acc[ii];
      break;
    case kernel_kind::matern12:
      for (std::size_t ii = 0; ii < len; ++ii) out[ii] = std::exp(-std::sqrt(acc[ii]));
      break;
    case kernel_kind::matern32: {
      const double scale = std::sqrt(3.0);
      for (std::size_t ii = 0; ii < len; ++ii) {
        const double t = std::sqrt(acc[ii]) * scale;
        out[ii] = matern_tail(1.0 + t, t);
      }
      break;
    }
    case kernel_kind::matern52: {
      const double scale = std::sqrt(5.0);
      for (std::size_t ii = 0; ii < len; ++ii) {
        const double t = std::sqrt(acc[ii]) * scale;
        out[ii] = matern_tail(1.0 + t + t * t / 3.0, t);
      }
      break;
    }
    case kernel_kind::distance:
      for (std::size_t ii = 0; ii < len; ++ii) out[ii] = std::sqrt(acc[ii]);
      break;
  }
}

}  // namespace detail

// Number of tiles of an n x m kernel matrix.
inline std::size_t kernel_matrix_tiles(std::size_t n, std::size_t m) {
  return (n + kernel_tile_rows - 1) / kernel_tile_rows *
         ((m + kernel_tile_columns - 1) / kernel_tile_columns);
}

// Elements of K in a tile of an n x m matrix (at most): for the callers'
// estimates of a tile's cost.
inline double kernel_tile_elements(std::size_t n, std::size_t m) {
  return static_cast<double>(std::min(n, kernel_tile_rows)) *
         static_cast<double>(std::min(m, kernel_tile_columns));
}

// Computes tile `tile` (0 <= tile < kernel_matrix_tiles(n, m)) of the n x m
// matrix K for x (n x d) and y (m x d), into `out`, column-major n x m.
// Tiles run along the rows of K: consecutive tiles read the same block of
// rows of x, from cache when x is wide (at d = 4000 a block is 8 MB, and
// running down the columns read all of x from memory once per tile).
inline void kernel_matrix_tile(kernel_kind kind, double sigma, const matrix_view& x,
                               const matrix_view& y, std::size_t tile, double* out) {
  const std::size_t n = x.rows;
  const std::size_t groups = (y.rows + kernel_tile_columns - 1) / kernel_tile_columns;
  const std::size_t k_begin = tile % groups * kernel_tile_columns;
  const std::size_t columns = std::min(kernel_tile_columns, y.rows - k_begin);
  const std::size_t row_begin = tile / groups * kernel_tile_rows;
  const std::size_t len = std::min(kernel_tile_rows, n - row_begin);
  const detail::bandwidth_scaling scaled(sigma);
  double acc[kernel_tile_columns * kernel_tile_rows];
  switch (detail::accumulation_of(kind)) {
    case detail::accumulation::squared:
      detail::accumulate_tile<detail::accumulation::squared>(x, y, k_begin, columns, row_begin,
                                                             len, scaled, acc);
      break;
    case detail::accumulation::absolute:
      detail::accumulate_tile<detail::accumulation::absolute>(x, y, k_begin, columns, row_begin,
                                                              len, scaled, acc);
      break;
    case detail::accumulation::product:
      detail::accumulate_tile<detail::accumulation::product>(x, y, k_begin, columns, row_begin,
                                                             len, scaled, acc);
      break;
  }
  for (std::size_t c = 0; c < columns; ++c) {
    detail::finish_tile(kind, acc + c * kernel_tile_rows, len,
                        out + (k_begin + c) * n + row_begin);
  }
}

// The whole matrix on the calling thread (for callers without a thread pool).
inline void kernel_matrix(kernel_kind kind, double sigma, const matrix_view& x,
                          const matrix_view& y, double* out) {
  const std::size_t tiles = kernel_matrix_tiles(x.rows, y.rows);
  for (std::size_t tile = 0; tile < tiles; ++tile) kernel_matrix_tile(kind, sigma, x, y, tile, out);
}

}  // namespace kitchen
