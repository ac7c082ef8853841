// Correctness check and benchmark of the vectorised cosine / sine
// (inst/include/kitchen/sincos.hpp). See README.md in this directory.
//
//   g++ -std=gnu++17 -O2 -fpic -Wall -Wextra -pedantic -I inst/include
//       bench/cpp/sincos_bench.cpp -o /tmp/sincos_bench
//   /tmp/sincos_bench check [--n 10000000]
//   /tmp/sincos_bench bench [--min-ms 200] [--repeats 15]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kitchen/sincos.hpp"

using kitchen::simd_level;

namespace {

const char* level_name(simd_level l) {
  switch (l) {
    case simd_level::scalar: return "scalar";
    case simd_level::avx2: return "avx2";
    case simd_level::avx512: return "avx512";
  }
  return "?";
}

std::vector<simd_level> levels() {
  std::vector<simd_level> out;
  const simd_level best = kitchen::detect_simd();
  for (int l = 0; l <= static_cast<int>(best); ++l) out.push_back(static_cast<simd_level>(l));
  return out;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

int failures = 0;
void fail(const std::string& what) {
  ++failures;
  std::printf("FAIL: %s\n", what.c_str());
}

// ---------------------------------------------------------------- check

struct range_err {
  double cos_err = 0.0, sin_err = 0.0;
};

// Max abs error of level `l` against scale * std::cos/sin(x + shift), over
// `n` uniform arguments in [lo, hi] (in chunks). Also checks that the
// cosine-only entry point returns the same bits as the cosine of the pair.
range_err accuracy(simd_level l, double lo, double hi, std::size_t n, double shift, double scale,
                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  const std::size_t chunk = 1 << 16;
  std::vector<double> x(chunk), c(chunk), s(chunk), c2(chunk);
  range_err e;
  bool cos_only_same = true;
  for (std::size_t done = 0; done < n; done += chunk) {
    const std::size_t m = std::min(chunk, n - done);
    for (std::size_t i = 0; i < m; ++i) x[i] = u(rng);
    kitchen::sincos_shift_scale(x.data(), shift, scale, c.data(), s.data(), m, l);
    kitchen::cos_shift_scale(x.data(), shift, scale, c2.data(), m, l);
    for (std::size_t i = 0; i < m; ++i) {
      const double t = x[i] + shift;
      e.cos_err = std::max(e.cos_err, std::fabs(c[i] - scale * std::cos(t)));
      e.sin_err = std::max(e.sin_err, std::fabs(s[i] - scale * std::sin(t)));
      cos_only_same = cos_only_same && same_bits(c[i], c2[i]);
    }
  }
  if (!cos_only_same) fail(std::string("cos_shift_scale != cos of sincos_shift_scale, ") + level_name(l));
  return e;
}

std::vector<double> special_values() {
  const double inf = std::numeric_limits<double>::infinity();
  const double pio2 = 1.5707963267948966;
  std::vector<double> v = {0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 1e-20,
                           -1e-20, 1e-8, 0.5, 0.785398163397448, 0.7853981633974484,
                           1.5707963267948966, 3.141592653589793, -3.141592653589793,
                           4.71238898038469, 6.283185307179586, 1048576.0, -1048576.0,
                           1048577.0, 1e6, 2e6, 1e7, 1e9, 1e15, 4503599627370496.0, 1e17,
                           1e300, -1e300, std::numeric_limits<double>::max(),
                           -std::numeric_limits<double>::max(), inf, -inf,
                           std::numeric_limits<double>::quiet_NaN()};
  v.push_back(std::nextafter(1048576.0, 2e6));
  v.push_back(std::nextafter(1048576.0, 0.0));
  // Multiples of pi/2 (as doubles, and their neighbours) near 1e4, 1e5, 1e6.
  for (long base : {6366L, 63662L, 636619L}) {
    for (long k = base - 8; k <= base + 8; ++k) {
      for (double sign : {1.0, -1.0}) {
        const double t = sign * static_cast<double>(k) * pio2;
        v.push_back(t);
        v.push_back(std::nextafter(t, inf));
        v.push_back(std::nextafter(t, -inf));
      }
    }
  }
  return v;
}

void check_special(simd_level l, range_err& e) {
  const std::vector<double> v = special_values();
  const std::size_t n = v.size();
  std::vector<double> c(n), s(n);
  // shift -0 leaves every argument as it is (x + 0.0 would turn -0 into +0)
  kitchen::sincos_shift_scale(v.data(), -0.0, 1.0, c.data(), s.data(), n, l);
  for (std::size_t i = 0; i < n; ++i) {
    const double rc = std::cos(v[i]), rs = std::sin(v[i]);
    if (std::isnan(rc) || std::isnan(rs)) {
      if (!std::isnan(c[i]) || !std::isnan(s[i])) {
        char buf[128];
        std::snprintf(buf, sizeof buf, "%s: x = %g should give NaN", level_name(l), v[i]);
        fail(buf);
      }
      continue;
    }
    e.cos_err = std::max(e.cos_err, std::fabs(c[i] - rc));
    e.sin_err = std::max(e.sin_err, std::fabs(s[i] - rs));
  }
  // sin(+-0) = +-0, sin(tiny) = tiny, cos(0) = 1 exactly.
  if (!same_bits(s[0], 0.0) || !same_bits(s[1], -0.0) || c[0] != 1.0 || c[1] != 1.0 ||
      s[2] != 5e-324 || s[7] != -1e-20)
    fail(std::string("signed zero / tiny argument, ") + level_name(l));
}

// Results must not depend on an element's position, on n, or on in-place
// use: sub-arrays at every offset and length give the bits of the full run.
void check_determinism(simd_level l) {
  const std::size_t n = 600;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1e4, 1e4);
  std::vector<double> x(n);
  for (auto& v : x) v = u(rng);
  for (std::size_t i = 5; i < n; i += 37) x[i] = 3e6 * (i % 2 ? 1 : -1);  // libm lanes
  x[100] = std::numeric_limits<double>::infinity();
  x[201] = std::numeric_limits<double>::quiet_NaN();
  const double shift = 0.3, scale = -0.7;
  std::vector<double> c(n), s(n), co(n);
  kitchen::sincos_shift_scale(x.data(), shift, scale, c.data(), s.data(), n, l);
  kitchen::cos_shift_scale(x.data(), shift, scale, co.data(), n, l);
  const double guard = -12345.0;
  bool ok = true;
  for (std::size_t off = 0; off < 17; ++off) {
    for (std::size_t len = 0; len <= 41 && off + len <= n; ++len) {
      std::vector<double> in(x.begin() + off, x.begin() + off + len);
      std::vector<double> cb(len + 2, guard), sb(len + 2, guard), ob(len + 2, guard);
      kitchen::sincos_shift_scale(in.data(), shift, scale, cb.data() + 1, sb.data() + 1, len, l);
      kitchen::cos_shift_scale(in.data(), shift, scale, ob.data() + 1, len, l);
      ok = ok && cb[0] == guard && cb[len + 1] == guard && sb[0] == guard &&
           sb[len + 1] == guard && ob[0] == guard && ob[len + 1] == guard;
      for (std::size_t i = 0; i < len; ++i)
        ok = ok && same_bits(cb[i + 1], c[off + i]) && same_bits(sb[i + 1], s[off + i]) &&
             same_bits(ob[i + 1], co[off + i]);
      // In place: in == cos_out, then in == sin_out, then cosine only.
      std::vector<double> ip(in), sp(len);
      kitchen::sincos_shift_scale(ip.data(), shift, scale, ip.data(), sp.data(), len, l);
      for (std::size_t i = 0; i < len; ++i)
        ok = ok && same_bits(ip[i], c[off + i]) && same_bits(sp[i], s[off + i]);
      ip = in;
      kitchen::sincos_shift_scale(ip.data(), shift, scale, sp.data(), ip.data(), len, l);
      for (std::size_t i = 0; i < len; ++i)
        ok = ok && same_bits(sp[i], c[off + i]) && same_bits(ip[i], s[off + i]);
      ip = in;
      kitchen::cos_shift_scale(ip.data(), shift, scale, ip.data(), len, l);
      for (std::size_t i = 0; i < len; ++i) ok = ok && same_bits(ip[i], co[off + i]);
    }
  }
  if (!ok) fail(std::string("results depend on position / n / in-place, ") + level_name(l));
  if (!(std::isnan(c[100]) && std::isnan(s[100]) && std::isnan(c[201]) && std::isnan(s[201])))
    fail(std::string("Inf/NaN in array should give NaN, ") + level_name(l));
}

int run_check(std::size_t n) {
  const double pi = 3.141592653589793;
  struct rng_range {
    const char* name;
    double lo, hi;
  };
  const rng_range ranges[] = {{"[-pi, pi]", -pi, pi},
                              {"[-100, 100]", -100, 100},
                              {"[-1e4, 1e4]", -1e4, 1e4},
                              {"[-1e5, 1e5]", -1e5, 1e5},
                              {"[-1e6, 1e6]", -1e6, 1e6},
                              {"[-3e6, 3e6] (libm beyond 2^20)", -3e6, 3e6}};
  std::printf("max abs error vs std::cos / std::sin, %zu uniform arguments per range\n", n);
  std::printf("%-32s %-7s %10s %10s\n", "range", "level", "cos", "sin");
  const double tol = 1e-12;
  std::uint64_t seed = 1;
  for (const auto& r : ranges) {
    for (simd_level l : levels()) {
      const range_err e = accuracy(l, r.lo, r.hi, n, 0.0, 1.0, seed);
      std::printf("%-32s %-7s %10.2e %10.2e\n", r.name, level_name(l), e.cos_err, e.sin_err);
      if (!(e.cos_err <= tol && e.sin_err <= tol)) fail(std::string("accuracy ") + r.name);
    }
    ++seed;
  }
  for (simd_level l : levels()) {
    // shift and scale as in random features: scale * cos(x + shift)
    const range_err e = accuracy(l, -100, 100, n / 10, 2.345, 0.0625, 99);
    std::printf("%-32s %-7s %10.2e %10.2e\n", "[-100, 100], shift 2.345, x1/16", level_name(l),
                e.cos_err, e.sin_err);
    if (!(e.cos_err <= tol && e.sin_err <= tol)) fail("accuracy with shift and scale");
  }
  for (simd_level l : levels()) {
    range_err e;
    check_special(l, e);
    std::printf("%-32s %-7s %10.2e %10.2e\n", "special values", level_name(l), e.cos_err,
                e.sin_err);
    if (!(e.cos_err <= tol && e.sin_err <= tol)) fail("accuracy on special values");
    check_determinism(l);
  }
  std::printf(failures ? "%d FAILURES\n" : "all checks passed\n", failures);
  return failures ? 1 : 0;
}

// ---------------------------------------------------------------- bench

using clock_type = std::chrono::steady_clock;

template <typename F>
double median_ns_per_element(F&& f, std::size_t n, double min_ms, int repeats) {
  // calls per sample so that one sample lasts about min_ms / repeats
  f();
  std::size_t calls = 1;
  const double target = min_ms / repeats * 1e6;
  for (;;) {
    const auto t0 = clock_type::now();
    for (std::size_t c = 0; c < calls; ++c) f();
    const double ns = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
    if (ns >= target || calls >= (std::size_t(1) << 30)) break;
    calls *= 2;
  }
  std::vector<double> samples;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = clock_type::now();
    for (std::size_t c = 0; c < calls; ++c) f();
    const double ns = std::chrono::duration<double, std::nano>(clock_type::now() - t0).count();
    samples.push_back(ns / (static_cast<double>(calls) * n));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

volatile double sink;

int run_bench(double min_ms, int repeats) {
  const std::size_t sizes[] = {1024, 4096, std::size_t(1) << 20};
  std::printf("ns per element (per input), median of %d, arguments uniform in [-100, 100]\n",
              repeats);
  std::printf("%-9s %-14s %10s %10s\n", "n", "method", "sincos", "cos only");
  for (std::size_t n : sizes) {
    std::vector<double> x(n), c(n), s(n);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-100, 100);
    for (auto& v : x) v = u(rng);
    const double shift = 0.25, scale = 0.1;
    double* xp = x.data();
    double* cp = c.data();
    double* sp = s.data();
    char label[64];
    if (n * 8 >= (1 << 20))
      std::snprintf(label, sizeof label, "%zu (%zu MB)", n, n * 8 >> 20);
    else
      std::snprintf(label, sizeof label, "%zu", n);
    {
      const double both = median_ns_per_element([&] {
        for (std::size_t i = 0; i < n; ++i) {
          const double t = xp[i] + shift;
          cp[i] = scale * std::cos(t);
          sp[i] = scale * std::sin(t);
        }
      }, n, min_ms, repeats);
      const double one = median_ns_per_element([&] {
        for (std::size_t i = 0; i < n; ++i) cp[i] = scale * std::cos(xp[i] + shift);
      }, n, min_ms, repeats);
      std::printf("%-9s %-14s %10.3f %10.3f\n", label, "std::cos/sin", both, one);
    }
    for (simd_level l : levels()) {
      const double both = median_ns_per_element(
          [&] { kitchen::sincos_shift_scale(xp, shift, scale, cp, sp, n, l); }, n, min_ms,
          repeats);
      const double one = median_ns_per_element(
          [&] { kitchen::cos_shift_scale(xp, shift, scale, cp, n, l); }, n, min_ms, repeats);
      std::printf("%-9s %-14s %10.3f %10.3f\n", label, level_name(l), both, one);
    }
    sink = c[n / 2] + s[n / 3];
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "check";
  std::size_t n = 10000000;
  double min_ms = 200;
  int repeats = 15;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--n") n = std::strtoull(argv[i + 1], nullptr, 10);
    else if (opt == "--min-ms") min_ms = std::atof(argv[i + 1]);
    else if (opt == "--repeats") repeats = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", opt.c_str());
      return 2;
    }
  }
  std::printf("CPU level: %s\n", level_name(kitchen::detect_simd()));
  if (mode == "check") return run_check(n);
  if (mode == "bench") return run_bench(min_ms, repeats);
  std::fprintf(stderr, "usage: %s check|bench [options]\n", argv[0]);
  return 2;
}
