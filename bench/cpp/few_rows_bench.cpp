// Standalone check and benchmark of the features of a few rows (predict()'s
// small calls): the product by P transposed and the cosines and sines, on
// the level the CPU supports. Not part of the R package. See README.md.
//
//   few_rows_bench [d m]   rows 1-10, 12, 14, 16, 17, 64 (default d = 64, m = 1024)
//
// Prints, per row count, the median thread CPU time (us) of the product, of
// product + nonlinearity, and whether both match the reference bitwise:
// gemm_direct_columns() for the product, one sincos call per column (the
// path of many rows) for the nonlinearity. The thread CPU clock leaves out
// waiting for a core on a loaded machine.
#include <kitchen/gemm_simd.hpp>
#include <kitchen/rff.hpp>
#include <kitchen/simd.hpp>

#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

double cpu_us() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

template <class F>
double median_us(F f, int reps) {
  std::vector<double> t;
  for (int r = 0; r < 15; ++r) {
    const double a = cpu_us();
    for (int i = 0; i < reps; ++i) f();
    t.push_back((cpu_us() - a) / reps);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t d = argc > 2 ? std::strtoul(argv[1], nullptr, 10) : 64;
  const std::size_t m = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1024;
  const kitchen::simd_level level = kitchen::detect_simd();
  if (level == kitchen::simd_level::scalar) {
    std::printf("no AVX2 / AVX-512: the few-row kernels are not used\n");
    return 0;
  }
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform(0, 6.283185307179586);
  // P transposed with the padded row stride rff maps keep it in.
  const std::size_t ld = kitchen::gemm_transposed_stride(m);
  std::vector<double> pt(d * ld), p(d * m), offset(m);
  for (std::size_t k = 0; k < d; ++k) {
    for (std::size_t j = 0; j < m; ++j) p[k + j * d] = pt[k * ld + j] = 0.1 * normal(rng);
  }
  for (double& v : offset) v = uniform(rng);
  const double scale = std::sqrt(1.0 / static_cast<double>(m));
  std::printf("d = %zu, m = %zu, level %s\n", d, m,
              level == kitchen::simd_level::avx512 ? "avx512" : "avx2");
  std::printf("rows  product_us  features_us  product_bits  features_bits\n");
  for (std::size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 17, 64}) {
    std::vector<double> x(n * d), out(n * 2 * m), ref(n * 2 * m);
    for (double& v : x) v = normal(rng);
    const int reps = static_cast<int>(std::max<std::size_t>(10, 2000 / n));
    const double product = median_us([&] {
      kitchen::gemm_transposed_columns(x.data(), n, n, d, pt.data(), ld, 0, m, out.data(), n, level);
    }, reps);
    const double features = median_us([&] {
      kitchen::gemm_transposed_columns(x.data(), n, n, d, pt.data(), ld, 0, m, out.data(), n, level);
      kitchen::rff_nonlinearity(out.data(), n, n, m, 0, m, offset.data(),
                                kitchen::rff_type::cos_sin, level);
    }, reps);
    kitchen::gemm_transposed_columns(x.data(), n, n, d, pt.data(), ld, 0, m, out.data(), n, level);
    kitchen::gemm_direct_columns(x.data(), n, n, d, p.data(), 0, m, ref.data(), n);
    const bool product_same = std::memcmp(out.data(), ref.data(), n * m * sizeof(double)) == 0;
    kitchen::rff_nonlinearity(out.data(), n, n, m, 0, m, offset.data(), kitchen::rff_type::cos_sin,
                              level);
    for (std::size_t k = 0; k < m; ++k) {
      kitchen::sincos_shift_scale(ref.data() + k * n, offset[k], scale, ref.data() + k * n,
                                  ref.data() + (k + m) * n, n, level);
    }
    const bool features_same = std::memcmp(out.data(), ref.data(), out.size() * sizeof(double)) == 0;
    std::printf("%4zu  %10.2f  %11.2f  %12s  %13s\n", n, product, features,
                product_same ? "same" : "DIFFER", features_same ? "same" : "DIFFER");
  }
  return 0;
}
