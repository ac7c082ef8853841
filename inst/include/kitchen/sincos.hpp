// Vectorised cosine and sine of double arrays, shifted and scaled:
//   cos_shift_scale:     out[i] = scale * cos(in[i] + shift)
//   sincos_shift_scale:  cos_out[i] = scale * cos(in[i] + shift),
//                        sin_out[i] = scale * sin(in[i] + shift)
// (the nonlinearity of random Fourier features, see rff.hpp).
//
// Algorithm (the same in every path):
//   t = in + shift;  k = nearest integer to t * 2/pi  (via the 1.5 * 2^52
//   rounding constant, whose low mantissa bits then hold k mod 4);
//   r = ((t - k p1) - k p2) - k p3, Cody-Waite with pi/2 = p1 + p2 + p3,
//   p1 and p2 of 33 bits so k p1, k p2 are exact for |k| < 2^20 and the first
//   subtraction is exact (Sterbenz): r is t - k pi/2 to ~1e-16 absolute;
//   sin r, cos r on |r| <= pi/4 by the fdlibm minimax polynomials
//   (degree 13 and 14, < 1 ulp on the interval); the quadrant k mod 4 swaps
//   them and sets the signs.
// Accuracy: within ~2e-16 absolute of the exact values (and of std::cos /
// std::sin) for |t| <= 2^20 (~1.05e6). Larger |t|, infinities and NaN go to
// std::cos / std::sin element by element (slow but exact as libm; NaN and
// +-Inf give NaN), see sincos_const::max_arg.
//
// Determinism: an element's result depends only on its input, shift, scale
// and the level, never on its position or n. The SIMD paths handle array
// tails with the same vector code (masked or padded), and their kernels are
// written with explicit FMA intrinsics only, so that no multiply-add is left
// for the compiler to contract differently between copies. The scalar path
// uses no FMA, so its results may differ from the SIMD ones in the last bits.
//
// In place: `in` may equal `out` / `cos_out` / `sin_out` (each input vector
// is loaded before its outputs are stored); other overlaps are not allowed.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "simd.hpp"

#define KITCHEN_SINCOS_CORE 1

namespace kitchen {
namespace detail {
namespace sincos_const {

// Arguments beyond this (and non-finite ones) go to std::cos / std::sin.
constexpr double max_arg = 1048576.0;  // 2^20
constexpr double two_over_pi = 6.36619772367581382433e-01;
// 1.5 * 2^52: x + round_magic rounds x to an integer (|x| < 2^51) that sits
// in the low mantissa bits.
constexpr double round_magic = 6755399441055744.0;
// pi/2 = pio2_1 + pio2_2 + pio2_3 (fdlibm's pio2_1, pio2_2, pio2_2t).
constexpr double pio2_1 = 1.57079632673412561417e+00;  // 0x3FF921FB54400000, 33 bits
constexpr double pio2_2 = 6.07710050630396597660e-11;  // 0x3DD0B4611A600000, 32 bits
constexpr double pio2_3 = 2.02226624879595063154e-21;  // 0x3BA3198A2E037073
// sin r = r (1 + z (S1 + z (S2 + ... + z S6))), z = r^2 (fdlibm __kernel_sin;
// the product form keeps the sign of r = -0).
constexpr double S1 = -1.66666666666666324348e-01;
constexpr double S2 = 8.33333333332248946124e-03;
constexpr double S3 = -1.98412698298579493134e-04;
constexpr double S4 = 2.75573137070700676789e-06;
constexpr double S5 = -2.50507602534068634195e-08;
constexpr double S6 = 1.58969099521155010221e-10;
// cos r = (1 - z/2) + z^2 (C1 + z (C2 + ... + z C6)) (fdlibm __kernel_cos).
constexpr double C1 = 4.16666666666666019037e-02;
constexpr double C2 = -1.38888888888741095749e-03;
constexpr double C3 = 2.48015872894767294178e-05;
constexpr double C4 = -2.75573143513906633035e-07;
constexpr double C5 = 2.08757232129817482790e-09;
constexpr double C6 = -1.13596475577881948265e-11;

}  // namespace sincos_const

// Scalar version of the vector kernels (no FMA). t must satisfy
// |t| <= max_arg; returns cos t and sin t.
inline void sincos_reduced_scalar(double t, double& c, double& s) {
  namespace K = sincos_const;
  const double y = t * K::two_over_pi + K::round_magic;
  const double k = y - K::round_magic;
  std::uint64_t bits;
  std::memcpy(&bits, &y, sizeof bits);
  double r = t - k * K::pio2_1;
  r = r - k * K::pio2_2;
  r = r - k * K::pio2_3;
  const double z = r * r;
  const double ps = K::S1 + z * (K::S2 + z * (K::S3 + z * (K::S4 + z * (K::S5 + z * K::S6))));
  const double pc = K::C1 + z * (K::C2 + z * (K::C3 + z * (K::C4 + z * (K::C5 + z * K::C6))));
  const double sr = r * (1.0 + z * ps);
  const double cr = (1.0 - 0.5 * z) + (z * z) * pc;
  // Quadrant q = k mod 4 (low bits of y), without branches (q is random):
  // q odd swaps; sin < 0 for q = 2, 3; cos < 0 for q = 1, 2.
  std::uint64_t cb, sb;
  std::memcpy(&cb, &cr, sizeof cb);
  std::memcpy(&sb, &sr, sizeof sb);
  const std::uint64_t swap = std::uint64_t(0) - (bits & 1), diff = (cb ^ sb) & swap;
  cb ^= diff ^ (((bits + 1) & 2) << 62);
  sb ^= diff ^ ((bits & 2) << 62);
  std::memcpy(&c, &cb, sizeof cb);
  std::memcpy(&s, &sb, sizeof sb);
}

inline bool sincos_in_range(double t) { return std::fabs(t) <= sincos_const::max_arg; }

// Lanes whose bit is clear in `ok` (out of range or not finite) get the
// libm values; t holds the shifted arguments. s may be null (cosine only).
inline void sincos_patch_lanes(const double* t, double scale, double* c, double* s, unsigned ok,
                               int lanes) {
  for (int l = 0; l < lanes; ++l) {
    if ((ok >> l) & 1u) continue;
    c[l] = scale * std::cos(t[l]);
    if (s) s[l] = scale * std::sin(t[l]);
  }
}

inline void cos_shift_scale_scalar(const double* in, double shift, double scale, double* out,
                                   std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double t = in[i] + shift;
    double c, s;
    if (sincos_in_range(t)) {
      sincos_reduced_scalar(t, c, s);
      out[i] = scale * c;
    } else {
      out[i] = scale * std::cos(t);
    }
  }
}

inline void sincos_shift_scale_scalar(const double* in, double shift, double scale,
                                      double* cos_out, double* sin_out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double t = in[i] + shift;
    double c, s;
    if (sincos_in_range(t)) {
      sincos_reduced_scalar(t, c, s);
      cos_out[i] = scale * c;
      sin_out[i] = scale * s;
    } else {
      cos_out[i] = scale * std::cos(t);
      sin_out[i] = scale * std::sin(t);
    }
  }
}

}  // namespace detail
}  // namespace kitchen

#include "sincos_avx2.hpp"
#include "sincos_avx512.hpp"

namespace kitchen {

// out[i] = scale * cos(in[i] + shift), i < n; `level` already resolved
// against the CPU (resolve_simd). in may equal out.
inline void cos_shift_scale(const double* in, double shift, double scale, double* out,
                            std::size_t n, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512) {
    detail::cos_shift_scale_avx512(in, shift, scale, out, n);
    return;
  }
  if (level == simd_level::avx2) {
    detail::cos_shift_scale_avx2(in, shift, scale, out, n);
    return;
  }
#else
  (void)level;
#endif
  detail::cos_shift_scale_scalar(in, shift, scale, out, n);
}

// cos_out[i] = scale * cos(in[i] + shift), sin_out[i] = scale * sin(in[i] +
// shift), i < n; `level` already resolved. in may equal cos_out (or sin_out).
inline void sincos_shift_scale(const double* in, double shift, double scale, double* cos_out,
                               double* sin_out, std::size_t n, simd_level level) {
#if KITCHEN_X86_SIMD
  if (level == simd_level::avx512) {
    detail::sincos_shift_scale_avx512(in, shift, scale, cos_out, sin_out, n);
    return;
  }
  if (level == simd_level::avx2) {
    detail::sincos_shift_scale_avx2(in, shift, scale, cos_out, sin_out, n);
    return;
  }
#else
  (void)level;
#endif
  detail::sincos_shift_scale_scalar(in, shift, scale, cos_out, sin_out, n);
}

}  // namespace kitchen
