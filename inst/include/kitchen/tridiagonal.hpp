// Householder reduction of a symmetric matrix to tridiagonal form,
// G = Q T Q', blocked in the style of LAPACK's dsytrd / dlatrd (lower
// triangle), and the products Q' b and Q u for a few vectors.
//
// Panel by panel (tridiagonal_block columns), each column is brought up to
// date, its reflector is generated (scaled norms, as dlarfg), and the
// symmetric product of the trailing matrix with it gives the next column of
// W; the trailing matrix then takes the rank-2nb update A - V W' - W V' on
// the packed AVX-512 / AVX2 micro-kernels of gram_simd.hpp. The symmetric
// product reads the lower triangle once (each entry serves two rows), split
// for large matrices into column slices (their number set by the size) with
// partial sums added in slice order, so results do not depend on how slices
// are spread over threads.
//
// The work comes as ranges of independent units: the caller passes a
// `Parallel` object whose operator()(n_units, unit_cost, body) runs
// body(begin, end) on disjoint ranges covering [0, n_units), on any number
// of threads (tridiagonal_serial runs them inline). Bodies never allocate
// or throw.
//
// The Level-2 kernels are written once on GCC vector types (8 doubles) and
// compiled three times: in AVX-512 and AVX2+FMA target functions (where
// a * b + c contracts to fused multiply-adds) and with the portable flags.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "gram_simd.hpp"
#include "simd.hpp"

namespace kitchen {

// Panel width nb: the trailing update is a rank-2nb product (64 deep).
constexpr std::size_t tridiagonal_block = 32;

// Runs every range inline, in order: for C++ callers without threads.
struct tridiagonal_serial {
  template <class Body>
  void operator()(std::size_t n_units, double, Body body) const {
    if (n_units > 0) body(0, n_units);
  }
};

// The entries of an n x n matrix in memory (column-major), as the
// reductions read them.
struct column_major_entries {
  const double* a;
  std::size_t n;
  double operator()(std::size_t r, std::size_t c) const { return a[r + c * n]; }
};

namespace tridiag_detail {

typedef double v8 __attribute__((vector_size(64)));
// Unaligned access to 8 doubles, as immintrin.h's __m512d_u (macros, not
// functions: a function returning a 64-byte vector would change the ABI).
typedef double v8u __attribute__((vector_size(64), aligned(8), may_alias));
#define load8(p) (*reinterpret_cast<const v8u*>(p))
#define store8(p, x) (*reinterpret_cast<v8u*>(p) = (x))

#define KITCHEN_TRIDIAG_INLINE inline __attribute__((always_inline))

KITCHEN_TRIDIAG_INLINE double sum8(const v8& x) {
  return ((x[0] + x[1]) + (x[2] + x[3])) + ((x[4] + x[5]) + (x[6] + x[7]));
}

// x' y over n entries (two 8-lane accumulators, then the tail in order).
KITCHEN_TRIDIAG_INLINE double dot_body(const double* x, const double* y, std::size_t n) {
  v8 s0 = {0, 0, 0, 0, 0, 0, 0, 0}, s1 = s0;
  std::size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = load8(x + i) * load8(y + i) + s0;
    s1 = load8(x + i + 8) * load8(y + i + 8) + s1;
  }
  if (i + 8 <= n) {
    s0 = load8(x + i) * load8(y + i) + s0;
    i += 8;
  }
  double s = sum8(s0 + s1);
  for (; i < n; ++i) s += x[i] * y[i];
  return s;
}

// y += alpha x over n entries.
KITCHEN_TRIDIAG_INLINE void axpy_body(double alpha, const double* x, double* y, std::size_t n) {
  const v8 a = {alpha, alpha, alpha, alpha, alpha, alpha, alpha, alpha};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) store8(y + i, a * load8(x + i) + load8(y + i));
  for (; i < n; ++i) y[i] += alpha * x[i];
}

// Columns [j_begin, j_end) of y += A v for the symmetric m x m matrix A
// (lower triangle, column stride lda): y[j] += A[j:m, j]' v[j:m] and
// y[j+1:m] += A[j+1:m, j] v[j]. Four columns at a time, so y is loaded and
// stored once per four columns.
KITCHEN_TRIDIAG_INLINE void symv_body(const double* a, std::size_t lda, std::size_t m,
                                      const double* v, double* y, std::size_t j_begin,
                                      std::size_t j_end) {
  std::size_t j = j_begin;
  for (; j + 4 <= j_end; j += 4) {
    const double* c0 = a + j * lda;
    const double* c1 = c0 + lda;
    const double* c2 = c1 + lda;
    const double* c3 = c2 + lda;
    // The 4 x 4 diagonal block.
    double t0 = c0[j] * v[j] + c0[j + 1] * v[j + 1] + c0[j + 2] * v[j + 2] + c0[j + 3] * v[j + 3];
    double t1 = c1[j + 1] * v[j + 1] + c1[j + 2] * v[j + 2] + c1[j + 3] * v[j + 3];
    double t2 = c2[j + 2] * v[j + 2] + c2[j + 3] * v[j + 3];
    double t3 = c3[j + 3] * v[j + 3];
    y[j + 1] += c0[j + 1] * v[j];
    y[j + 2] += c0[j + 2] * v[j] + c1[j + 2] * v[j + 1];
    y[j + 3] += c0[j + 3] * v[j] + c1[j + 3] * v[j + 1] + c2[j + 3] * v[j + 2];
    const double w0 = v[j], w1 = v[j + 1], w2 = v[j + 2], w3 = v[j + 3];
    const v8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
    const v8 b0 = w0 - zero, b1 = w1 - zero, b2 = w2 - zero, b3 = w3 - zero;
    v8 s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    std::size_t i = j + 4;
    for (; i + 8 <= m; i += 8) {
      const v8 vi = load8(v + i);
      const v8 a0 = load8(c0 + i), a1 = load8(c1 + i), a2 = load8(c2 + i), a3 = load8(c3 + i);
      v8 yi = load8(y + i);
      yi = a0 * b0 + yi;
      yi = a1 * b1 + yi;
      yi = a2 * b2 + yi;
      yi = a3 * b3 + yi;
      store8(y + i, yi);
      s0 = a0 * vi + s0;
      s1 = a1 * vi + s1;
      s2 = a2 * vi + s2;
      s3 = a3 * vi + s3;
    }
    t0 += sum8(s0);
    t1 += sum8(s1);
    t2 += sum8(s2);
    t3 += sum8(s3);
    for (; i < m; ++i) {
      y[i] += c0[i] * w0 + c1[i] * w1 + c2[i] * w2 + c3[i] * w3;
      t0 += c0[i] * v[i];
      t1 += c1[i] * v[i];
      t2 += c2[i] * v[i];
      t3 += c3[i] * v[i];
    }
    y[j] += t0;
    y[j + 1] += t1;
    y[j + 2] += t2;
    y[j + 3] += t3;
  }
  for (; j < j_end; ++j) {
    const double* c = a + j * lda;
    y[j] += c[j] * v[j] + dot_body(c + j + 1, v + j + 1, m - j - 1);
    axpy_body(v[j], c + j + 1, y + j + 1, m - j - 1);
  }
}

// Applies H_j = I - tau_j v_j v_j' for j in order (forward) or in reverse
// to columns [c_begin, c_end) of c (n x k, column stride ldc). v_j is
// column j of `a` from row j + 1 (its leading 1 stored there).
KITCHEN_TRIDIAG_INLINE void reflect_body(const double* a, std::size_t n, const double* tau,
                                         bool forward, double* c, std::size_t ldc,
                                         std::size_t c_begin, std::size_t c_end) {
  if (n < 2) return;
  for (std::size_t step = 0; step + 1 < n; ++step) {
    const std::size_t j = forward ? step : n - 2 - step;
    if (tau[j] == 0.0) continue;
    const double* v = a + j * n + j + 1;
    const std::size_t len = n - j - 1;
    for (std::size_t col = c_begin; col < c_end; ++col) {
      double* x = c + col * ldc + j + 1;
      axpy_body(-tau[j] * dot_body(v, x, len), v, x, len);
    }
  }
}

// Portable trailing update of a group of up to four columns [j_begin,
// j_end) of the m x m lower triangle A (stride lda):
// A[j:m, j] -= V[j:m, :] W[j, :]' + W[j:m, :] V[j, :]' for V, W m x nb
// (strides ldv, ldw). Eight rows of the four columns are accumulated over
// the nb terms in registers (a few entries above the diagonal, never read,
// are updated too).
KITCHEN_TRIDIAG_INLINE void rank2k_body(double* a, std::size_t lda, std::size_t m,
                                        const double* v, std::size_t ldv, const double* w,
                                        std::size_t ldw, std::size_t nb, std::size_t j_begin,
                                        std::size_t j_end) {
  const std::size_t cols = j_end - j_begin;
  if (cols != 4) {
    for (std::size_t j = j_begin; j < j_end; ++j) {
      double* col = a + j * lda + j;
      for (std::size_t k = 0; k < nb; ++k) {
        axpy_body(-w[k * ldw + j], v + k * ldv + j, col, m - j);
        axpy_body(-v[k * ldv + j], w + k * ldw + j, col, m - j);
      }
    }
    return;
  }
  const std::size_t j = j_begin;
  std::size_t i = j;
  for (; i + 8 <= m; i += 8) {
    const v8 zero = {0, 0, 0, 0, 0, 0, 0, 0};
    v8 s0 = zero, s1 = zero, s2 = zero, s3 = zero;
    for (std::size_t k = 0; k < nb; ++k) {
      const double* vk = v + k * ldv;
      const double* wk = w + k * ldw;
      const v8 vi = load8(vk + i), wi = load8(wk + i);
      s0 = vi * (wk[j] - zero) + s0;
      s0 = wi * (vk[j] - zero) + s0;
      s1 = vi * (wk[j + 1] - zero) + s1;
      s1 = wi * (vk[j + 1] - zero) + s1;
      s2 = vi * (wk[j + 2] - zero) + s2;
      s2 = wi * (vk[j + 2] - zero) + s2;
      s3 = vi * (wk[j + 3] - zero) + s3;
      s3 = wi * (vk[j + 3] - zero) + s3;
    }
    double* c = a + j * lda + i;
    store8(c, load8(c) - s0);
    store8(c + lda, load8(c + lda) - s1);
    store8(c + 2 * lda, load8(c + 2 * lda) - s2);
    store8(c + 3 * lda, load8(c + 3 * lda) - s3);
  }
  for (; i < m; ++i) {
    for (std::size_t q = 0; q < 4; ++q) {
      double sum = 0.0;
      for (std::size_t k = 0; k < nb; ++k) {
        sum += v[k * ldv + i] * w[k * ldw + j + q] + w[k * ldw + i] * v[k * ldv + j + q];
      }
      a[(j + q) * lda + i] -= sum;
    }
  }
}

// The three compilations of each kernel, and the choice among them.
// name(..., level) calls name_body(...) compiled for `level`.
#define KITCHEN_TRIDIAG_UNPAREN(...) __VA_ARGS__
#if KITCHEN_X86_SIMD
#define KITCHEN_TRIDIAG_VARIANTS(name, params, args)                                  \
  __attribute__((target("avx512f,avx512dq"))) inline auto name##_avx512 params {      \
    return name##_body args;                                                          \
  }                                                                                   \
  __attribute__((target("avx2,fma"))) inline auto name##_avx2 params {                \
    return name##_body args;                                                          \
  }                                                                                   \
  inline auto name##_scalar params { return name##_body args; }                       \
  inline auto name(KITCHEN_TRIDIAG_UNPAREN params, simd_level level) {                \
    return level == simd_level::avx512 ? name##_avx512 args                           \
           : level == simd_level::avx2 ? name##_avx2 args : name##_scalar args;       \
  }
#else
#define KITCHEN_TRIDIAG_VARIANTS(name, params, args)                                  \
  inline auto name(KITCHEN_TRIDIAG_UNPAREN params, simd_level) { return name##_body args; }
#endif


KITCHEN_TRIDIAG_VARIANTS(dot, (const double* x, const double* y, std::size_t n),
                         (x, y, n))
KITCHEN_TRIDIAG_VARIANTS(axpy, (double alpha, const double* x, double* y, std::size_t n),
                         (alpha, x, y, n))
KITCHEN_TRIDIAG_VARIANTS(symv, (const double* a, std::size_t lda, std::size_t m, const double* v,
                                double* y, std::size_t j_begin, std::size_t j_end),
                         (a, lda, m, v, y, j_begin, j_end))
KITCHEN_TRIDIAG_VARIANTS(reflect, (const double* a, std::size_t n, const double* tau, bool forward,
                                   double* c, std::size_t ldc, std::size_t c_begin,
                                   std::size_t c_end),
                         (a, n, tau, forward, c, ldc, c_begin, c_end))
KITCHEN_TRIDIAG_VARIANTS(rank2k, (double* a, std::size_t lda, std::size_t m, const double* v,
                                  std::size_t ldv, const double* w, std::size_t ldw, std::size_t nb,
                                  std::size_t j_begin, std::size_t j_end),
                         (a, lda, m, v, ldv, w, ldw, nb, j_begin, j_end))

#undef KITCHEN_TRIDIAG_VARIANTS
#undef KITCHEN_TRIDIAG_UNPAREN
#undef load8
#undef store8

// Euclidean norm of x without overflow or harmful underflow: scaled by a
// power of two (exact) when the largest entry is far from 1.
inline double scaled_norm(const double* x, std::size_t n, simd_level level) {
  double big = 0.0;
  for (std::size_t i = 0; i < n; ++i) big = std::max(big, std::fabs(x[i]));
  if (big == 0.0 || !(big <= std::numeric_limits<double>::max())) return big;
  const double safe_low = 0x1p-450, safe_high = 0x1p450;
  if (big > safe_low && big < safe_high) return std::sqrt(dot(x, x, n, level));
  int exponent = 0;
  std::frexp(big, &exponent);
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double s = std::ldexp(x[i], -exponent);
    sum += s * s;
  }
  return std::ldexp(std::sqrt(sum), exponent);
}

// LAPACK's dlarfg: the reflector H = I - tau v v' (v = (1, x')') with
// H (alpha, x')' = (beta, 0)'. x is overwritten by v's tail; returns beta.
inline double householder(double alpha, double* x, std::size_t n, double& tau, simd_level level) {
  double xnorm = scaled_norm(x, n, level);
  if (xnorm == 0.0) {
    tau = 0.0;
    return alpha;
  }
  double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
  const double safmin = std::numeric_limits<double>::min() / std::numeric_limits<double>::epsilon();
  int knt = 0;
  if (std::fabs(beta) < safmin) {
    const double rsafmn = 1.0 / safmin;
    do {
      ++knt;
      for (std::size_t i = 0; i < n; ++i) x[i] *= rsafmn;
      beta *= rsafmn;
      alpha *= rsafmn;
    } while (std::fabs(beta) < safmin && knt < 20);
    xnorm = scaled_norm(x, n, level);
    beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
  }
  tau = (beta - alpha) / beta;
  const double scale = 1.0 / (alpha - beta);
  for (std::size_t i = 0; i < n; ++i) x[i] *= scale;
  for (int k = 0; k < knt; ++k) beta *= safmin;
  return beta;
}

// Column slices of the symmetric product on an m x m trailing matrix:
// bounds[0] = 0 < ... < bounds[count] = m, of about equal area of the lower
// triangle (about `slice_entries` entries each, at most 8), on multiples of
// 4. Depends on m only, not on the threads.
inline std::size_t symv_slices(std::size_t m, std::size_t slice_entries, std::size_t* bounds) {
  constexpr std::size_t max_slices = 8;
  const std::size_t n = std::max<std::size_t>(1, std::min(max_slices, m * m / 2 / slice_entries));
  bounds[0] = 0;
  std::size_t count = 0;
  for (std::size_t q = 1; q < n; ++q) {
    const double t = m * (1.0 - std::sqrt(1.0 - static_cast<double>(q) / n));
    const std::size_t b = static_cast<std::size_t>(t) / 4 * 4;
    if (b > bounds[count] && b < m) bounds[++count] = b;
  }
  bounds[++count] = m;
  return count;
}

}  // namespace tridiag_detail

namespace tridiag_detail {

// The n x n symmetric matrix whose upper triangle entry(r, c) (r <= c)
// gives, into a: its lower triangle (the transpose, by 64 x 64 tiles: a
// row-wise read of a 1 GB matrix misses the cache at every entry) and its
// upper triangle too (`whole`) or zeros there; columns by blocks over
// threads.
template <class Parallel, class Entry>
void load_symmetric(Parallel& parallel, Entry& entry, std::size_t n, double* a, bool whole) {
  constexpr std::size_t tile = 64;
  const std::size_t blocks = (n + tile - 1) / tile;
  parallel(blocks, 2.0 * tile * n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b) {
      const std::size_t j0 = b * tile, j1 = std::min(n, j0 + tile);
      if (!whole) {
        for (std::size_t j = j0; j < j1; ++j) std::fill(a + j * n, a + j * n + j, 0.0);
      }
      for (std::size_t i0 = whole ? 0 : j0; i0 < n; i0 += tile) {
        const std::size_t i1 = std::min(n, i0 + tile);
        for (std::size_t j = j0; j < j1; ++j) {
          for (std::size_t i = whole ? i0 : std::max(i0, j); i < i1; ++i) {
            a[i + j * n] = i < j ? entry(i, j) : entry(j, i);
          }
        }
      }
    }
  });
}

}  // namespace tridiag_detail

#if KITCHEN_X86_SIMD
namespace tridiag_detail {

// A[0:m, 0:m] (column stride lda) -= V W' + W V' for V and W m x nbe
// (strides ldv, ldw), as G += U' X on the Z'Z micro-kernels: U = -[V W] and
// X = [W V] (m x 2nb) packed in strips of Kernel::mr rows. The tiles that
// touch the lower triangle only (a few entries above the diagonal are
// updated too), or every tile (`full`, for a matrix kept whole).
template <class Kernel, class Parallel>
void rank2k_packed(Parallel& parallel, double* a, std::size_t lda, std::size_t m,
                   const double* v, std::size_t ldv, const double* w, std::size_t ldw,
                   std::size_t nbe, bool full, double* packed_u, double* packed_x) {
  constexpr std::size_t mr = Kernel::mr, nr = Kernel::nr;
  const std::size_t kc = 2 * nbe, strip = kc * mr;
  const std::size_t n_strips = (m + mr - 1) / mr;
  double* pu = align64(packed_u);
  double* px = align64(packed_x);
  parallel(n_strips, 4.0 * strip, [&](std::size_t begin, std::size_t end) {
    for (std::size_t st = begin; st < end; ++st) {
      double* ou = pu + st * strip;
      double* ox = px + st * strip;
      const std::size_t r0 = st * mr, rows = std::min(mr, m - r0);
      for (std::size_t k = 0; k < nbe; ++k) {
        const double* vk = v + k * ldv + r0;
        const double* wk = w + k * ldw + r0;
        for (std::size_t r = 0; r < mr; ++r) {
          const double vr = r < rows ? vk[r] : 0.0, wr = r < rows ? wk[r] : 0.0;
          ou[k * mr + r] = -vr;
          ou[(nbe + k) * mr + r] = -wr;
          ox[k * mr + r] = wr;
          ox[(nbe + k) * mr + r] = vr;
        }
      }
    }
  });
  const std::size_t n_tiles = (m + nr - 1) / nr, n_pairs = (n_tiles + 1) / 2;
  const auto tile_column = [&](std::size_t tile) {
    const std::size_t j0 = tile * nr, nj = std::min(nr, m - j0);
    const double* b = px + (j0 / mr) * strip + j0 % mr;
    for (std::size_t i0 = full ? 0 : j0 / mr * mr; i0 < m; i0 += mr) {
      detail::kernel_tile<Kernel>(kc, pu + (i0 / mr) * strip, b, a + i0 + j0 * lda, lda,
                                  std::min(mr, m - i0), nj);
    }
  };
  // first and last tile columns together: the lower triangle's are unequal
  parallel(n_pairs, 2.0 * kc * nr * (m + nr), [&](std::size_t begin, std::size_t end) {
    for (std::size_t u = begin; u < end; ++u) {
      tile_column(u);
      if (n_tiles - 1 - u != u) tile_column(n_tiles - 1 - u);
    }
  });
}

}  // namespace tridiag_detail
#endif

// The reduction of an n x n symmetric matrix: T's diagonal d (n) and
// off-diagonal e (n - 1), and Q = H_0 ... H_{n-2}, H_j = I - tau_j v_j v_j'
// with v_j stored in column j of `reflectors` from row j + 1 (leading 1
// included). Allocate it on the main thread.
class tridiagonal_reduction {
 public:
  // The working copy is left untouched here: filling it (1.15 GB at
  // n = 12,000, first touch and a transposition) is work for reduce()'s
  // threads, between interrupt checks.
  tridiagonal_reduction(std::size_t n, simd_level level)
      : n_(n), level_(level), a_(new double[n * n]), d_(n), e_(n > 1 ? n - 1 : 0),
        tau_(e_.size()) {}

  const std::vector<double>& diagonal() const { return d_; }
  const std::vector<double>& off_diagonal() const { return e_; }
  // Q's reflectors as described above (n x n; entries of column j above
  // row j + 1 are not v_j's), their factors tau (n - 1), and the level.
  const double* reflectors() const { return a_.get(); }
  const std::vector<double>& tau() const { return tau_; }
  std::size_t size() const { return n_; }
  simd_level level() const { return level_; }

  // The symmetric product streams the lower triangle from memory (about
  // 0.3 ms at m = 2048 on one Zen 5 core) and threads meet once per column,
  // so a slice is worth a thread only from about 1.5e6 entries of the
  // triangle (m >= 2450 for two): on a shared machine a thread held up for
  // a time slice costs more than it brings (at D = 2048, splitting every
  // product took 0.73 s against 0.45 s with two jobs running beside it).
  // Tests lower it to split small matrices too.
  std::size_t symv_slice_entries = 1500000;

  // Reduces the symmetric matrix whose upper triangle entry(r, c) (r <= c)
  // gives, computed as it is read (a fold's centred training Gram matrix
  // from the totals: no copy of it in memory besides the working one).
  template <class Parallel, class Entry>
  void reduce_from(Parallel& parallel, Entry entry) {
    const std::size_t n = n_, nb = tridiagonal_block;
    if (n == 0) return;
    load(parallel, entry);
    std::vector<double> w(n * nb), t(2 * nb);
    std::vector<double> partial(8 * n);  // one row of partial sums per slice
    const std::size_t width = gram_strip_width(level_);
    std::vector<double> packed_u, packed_x;
    if (width > 0) {
      const std::size_t size = (n + width - 1) / width * width * 2 * nb + 8;
      packed_u.resize(size);
      packed_x.resize(size);
    }
    for (std::size_t p = 0; p < n; p += nb) {
      const std::size_t nbe = std::min(nb, n - p);
      panel(parallel, p, nbe, w.data(), t.data(), partial.data());
      const std::size_t s = p + nbe;
      if (s < n) {
        trailing_update(parallel, p, nbe, w.data(), packed_u.data(), packed_x.data());
      }
    }
  }

  // Q' c (transpose) or Q c for columns [begin, end) of c (n x k, column
  // stride ldc), in place.
  void apply(bool transpose, double* c, std::size_t ldc, std::size_t begin,
             std::size_t end) const {
    tridiag_detail::reflect(a_.get(), n_, tau_.data(), transpose, c, ldc, begin, end, level_);
  }

  // Cost of apply() per column, in elementary operations.
  double apply_cost() const { return 2.0 * n_ * n_; }

 private:
  std::size_t n_;
  simd_level level_;
  std::unique_ptr<double[]> a_;
  std::vector<double> d_, e_, tau_;

  double* col(std::size_t j) { return a_.get() + j * n_; }

  // a_'s lower triangle from the upper one entry() gives, its strict upper
  // triangle zero.
  template <class Parallel, class Entry>
  void load(Parallel& parallel, Entry& entry) {
    tridiag_detail::load_symmetric(parallel, entry, n_, a_.get(), false);
  }

  // dlatrd on columns p .. p + nbe: reflectors into a_, W (n x nb, stride
  // n, rows from p) for the trailing update.
  template <class Parallel>
  void panel(Parallel& parallel, std::size_t p, std::size_t nbe, double* w, double* t,
             double* partial) {
    using namespace tridiag_detail;
    const std::size_t n = n_;
    const simd_level level = level_;
    for (std::size_t i = 0; i < nbe; ++i) {
      const std::size_t c = p + i;
      double* ac = col(c);
      // Bring column c up to date with the panel's earlier reflectors.
      for (std::size_t k = 0; k < i; ++k) {
        const double* vk = col(p + k);
        const double* wk = w + k * n;
        axpy(-wk[c], vk + c, ac + c, n - c, level);
        axpy(-vk[c], wk + c, ac + c, n - c, level);
      }
      d_[c] = ac[c];
      if (c + 1 == n) break;
      const std::size_t m = n - c - 1;
      double* v = ac + c + 1;
      e_[c] = householder(v[0], v + 1, m - 1, tau_[c], level);
      v[0] = 1.0;
      double* y = w + i * n + c + 1;
      // y = A22 v on the trailing matrix as it was at the panel's start.
      std::size_t bounds[9];
      const std::size_t n_slices = symv_slices(m, symv_slice_entries, bounds);
      const double* a22 = col(c + 1) + c + 1;
      parallel(n_slices, static_cast<double>(m) * m / n_slices, [&](std::size_t begin, std::size_t end) {
        for (std::size_t q = begin; q < end; ++q) {
          double* part = partial + q * n;
          std::fill(part + bounds[q], part + m, 0.0);
          symv(a22, n, m, v, part, bounds[q], bounds[q + 1], level);
        }
      });
      std::copy(partial, partial + m, y);
      for (std::size_t q = 1; q < n_slices; ++q) {
        const double* part = partial + q * n;
        for (std::size_t r = bounds[q]; r < m; ++r) y[r] += part[r];
      }
      // y -= V (W' v) + W (V' v) over the panel's earlier columns.
      for (std::size_t k = 0; k < i; ++k) {
        t[k] = dot(w + k * n + c + 1, v, m, level);
        t[tridiagonal_block + k] = dot(col(p + k) + c + 1, v, m, level);
      }
      for (std::size_t k = 0; k < i; ++k) {
        axpy(-t[k], col(p + k) + c + 1, y, m, level);
        axpy(-t[tridiagonal_block + k], w + k * n + c + 1, y, m, level);
      }
      const double tau = tau_[c];
      for (std::size_t r = 0; r < m; ++r) y[r] *= tau;
      axpy(-0.5 * tau * dot(y, v, m, level), v, y, m, level);
    }
  }

  // A[s:n, s:n] -= V W' + W V' (lower triangle), s = p + nbe, with V the
  // panel's reflectors and W from panel().
  template <class Parallel>
  void trailing_update(Parallel& parallel, std::size_t p, std::size_t nbe, const double* w,
                       double* packed_u, double* packed_x) {
    const std::size_t n = n_, s = p + nbe, m = n - s;
    const double* v = col(p) + s;
    const double* ws = w + s;
#if KITCHEN_X86_SIMD
    if (level_ == simd_level::avx2) {
      trailing_update_packed<detail::gram_avx2>(parallel, m, v, ws, nbe, packed_u, packed_x);
      return;
    }
    if (level_ == simd_level::avx512) {
      trailing_update_packed<detail::gram_avx512>(parallel, m, v, ws, nbe, packed_u, packed_x);
      return;
    }
#endif
    (void)packed_u;
    (void)packed_x;
    double* a = col(s) + s;
    const simd_level level = level_;
    const std::size_t n_groups = (m + 3) / 4, n_pairs = (n_groups + 1) / 2;
    const auto group = [&](std::size_t g) {
      tridiag_detail::rank2k(a, n, m, v, n, ws, n, nbe, 4 * g, std::min(m, 4 * g + 4), level);
    };
    parallel(n_pairs, 16.0 * nbe * (m + 4), [&](std::size_t begin, std::size_t end) {
      for (std::size_t u = begin; u < end; ++u) {
        group(u);
        if (n_groups - 1 - u != u) group(n_groups - 1 - u);
      }
    });
  }

#if KITCHEN_X86_SIMD
  template <class Kernel, class Parallel>
  void trailing_update_packed(Parallel& parallel, std::size_t m, const double* v,
                              const double* w, std::size_t nbe, double* packed_u,
                              double* packed_x) {
    tridiag_detail::rank2k_packed<Kernel>(parallel, col(n_ - m) + (n_ - m), n_, m, v, n_, w, n_,
                                          nbe, false, packed_u, packed_x);
  }
#endif
};

}  // namespace kitchen
