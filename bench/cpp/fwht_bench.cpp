// Standalone correctness check and benchmark for kitchen's FWHT core.
// Not part of the R package. See README.md in this folder.
//
//   fwht_bench check            bitwise comparison of all paths, n = 2^0..2^22,
//                               in place and out of place (plain, scaled, checked)
//   fwht_bench bench [options]  median time per vector: in place on a warm
//                               batch, then out of place from a cold batch
//     --offset K     start vectors K doubles past a 64-byte boundary (default 2,
//                    i.e. 16-byte aligned like R's vectors)
//     --batch-kb B   size of the batch of vectors transformed per timing (512)
//     --min-ms T     time spent per (n, level) cell (default 300)
//     --max-log2 M   largest n = 2^M (default 22)
//     --cold-mb C    size of the input batch (and of the output) for the
//                    out-of-place timings (default 64, well beyond the caches)
#include <kitchen/fwht.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using kitchen::simd_level;

namespace {

const char* level_name(simd_level l) {
  switch (l) {
    case simd_level::avx512: return "avx512";
    case simd_level::avx2: return "avx2";
    default: return "scalar";
  }
}

std::vector<simd_level> available_levels() {
  std::vector<simd_level> out = {simd_level::scalar};
  const simd_level best = kitchen::detect_simd();
  if (best >= simd_level::avx2) out.push_back(simd_level::avx2);
  if (best >= simd_level::avx512) out.push_back(simd_level::avx512);
  return out;
}

// 64-byte aligned buffer of n doubles starting `offset` doubles in, with
// guard values on both sides to catch out-of-bounds writes.
struct Buffer {
  static constexpr std::size_t guard = 16;
  std::vector<double> storage;
  double* data;
  std::size_t n;
  Buffer(std::size_t n_, std::size_t offset) : storage(n_ + 2 * guard + 16), n(n_) {
    auto p = reinterpret_cast<std::uintptr_t>(storage.data() + guard);
    p = (p + 63) & ~std::uintptr_t(63);
    data = reinterpret_cast<double*>(p) + offset;
    for (std::size_t i = 0; i < guard; ++i) data[-1 - std::ptrdiff_t(i)] = data[n + i] = 12345.0;
  }
  bool guards_ok() const {
    for (std::size_t i = 0; i < guard; ++i)
      if (data[-1 - std::ptrdiff_t(i)] != 12345.0 || data[n + i] != 12345.0) return false;
    return true;
  }
};

// Values spanning ~1e-35..1e35 with random signs, so any change in rounding
// order shows up in the low bits.
void fill_wild(double* x, std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<double> norm;
  std::bernoulli_distribution coin;
  for (std::size_t i = 0; i < n; ++i) x[i] = (coin(rng) ? -1.0 : 1.0) * std::exp(norm(rng) * 20.0);
}

// Sylvester order check against the definition H[i][j] = (-1)^popcount(i & j).
bool check_definition() {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> small(-1000, 1000);
  for (std::size_t n = 1; n <= 256; n *= 2) {
    std::vector<double> x(n), y(n, 0.0);
    for (auto& v : x) v = small(rng);  // integers: exact in any order
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) y[i] += (__builtin_popcountll(i & j) & 1) ? -x[j] : x[j];
    kitchen::fwht_scalar(x.data(), n);
    if (x != y) {
      std::printf("definition check FAILED at n=%zu\n", n);
      return false;
    }
  }
  std::printf("fwht_scalar matches the Sylvester-order definition for n = 1..256\n");
  return true;
}

// Out-of-place entries against the in-place transform of a copy: plain,
// scaled (vs multiplying afterwards), checked (finite input: same values,
// returns true), at input and output offsets that differ, and in == out.
// The input must be left untouched and nothing written outside `out`.
bool check_out_of_place(std::mt19937_64& rng, const std::vector<simd_level>& levels) {
  bool ok = true;
  long compared = 0;
  struct Offsets { std::size_t in, out; };
  const Offsets offsets[] = {{0, 0}, {2, 2}, {1, 6}, {5, 0}, {3, 3}, {7, 1}};
  for (int lg = 0; lg <= 22; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<double> input(n), expected(n), expected_scaled(n);
    fill_wild(input.data(), n, rng);
    expected = input;
    kitchen::fwht_scalar(expected.data(), n);
    const double scale = 1.0 / std::sqrt(double(n));
    for (std::size_t i = 0; i < n; ++i) expected_scaled[i] = expected[i] * scale;
    for (simd_level level : levels) {
      int case_no = 0;
      for (const Offsets& off : offsets) {
        ++case_no;
        if (lg > 16 && case_no > 3) continue;  // keep the big sizes quick
        Buffer in(n, off.in), out(n, off.out);
        std::memcpy(in.data, input.data(), n * sizeof(double));
        auto fail = [&](const char* what) {
          std::printf("MISMATCH out-of-place n=2^%d level=%s in+%zu out+%zu: %s\n", lg,
                      level_name(level), off.in, off.out, what);
          ok = false;
        };
        auto same = [&](const double* a, const std::vector<double>& b) {
          return std::memcmp(a, b.data(), n * sizeof(double)) == 0;
        };
        kitchen::fwht(in.data, out.data, n, level);
        if (!same(out.data, expected)) fail("plain: values differ");
        std::fill(out.data, out.data + n, -7.0);
        kitchen::fwht(in.data, out.data, n, level, scale);
        if (!same(out.data, expected_scaled)) fail("scaled: values differ");
        std::fill(out.data, out.data + n, -7.0);
        if (!kitchen::fwht_checked(in.data, out.data, n, level, 1.0)) fail("checked: said non-finite");
        if (!same(out.data, expected)) fail("checked: values differ");
        std::fill(out.data, out.data + n, -7.0);
        if (!kitchen::fwht_checked(in.data, out.data, n, level, scale)) fail("checked+scaled: said non-finite");
        if (!same(out.data, expected_scaled)) fail("checked+scaled: values differ");
        if (!same(in.data, input)) fail("input modified");
        if (!in.guards_ok() || !out.guards_ok()) fail("guard overwritten");
        // in == out, through every entry
        kitchen::fwht(in.data, in.data, n, level);
        if (!same(in.data, expected)) fail("in == out: values differ");
        std::memcpy(in.data, input.data(), n * sizeof(double));
        kitchen::fwht(in.data, in.data, n, level, scale);
        if (!same(in.data, expected_scaled)) fail("in == out scaled: values differ");
        std::memcpy(in.data, input.data(), n * sizeof(double));
        if (!kitchen::fwht_checked(in.data, in.data, n, level, scale) || !same(in.data, expected_scaled))
          fail("in == out checked+scaled");
        if (!in.guards_ok()) fail("guard overwritten (in == out)");
        compared += 7;
      }
    }
  }
  std::printf("%ld out-of-place cases (plain, scaled, checked, in == out; n = 2^0..2^22, "
              "in/out offsets) compared bitwise with fwht_scalar in place: %s\n",
              compared, ok ? "all identical" : "FAILURES");
  return ok;
}

// fwht_checked() must return false for any NA, NaN or +-Inf, wherever it
// is, and true for finite input whose transform overflows to Inf.
bool check_finiteness(std::mt19937_64& rng, const std::vector<simd_level>& levels) {
  bool ok = true;
  long cases = 0;
  const double na = [] {  // R's NA_real_: a NaN with payload 1954
    std::uint64_t bits = 0x7FF00000000007A2ULL;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }();
  const double bad_values[] = {na, std::nan(""), -std::nan(""), HUGE_VAL, -HUGE_VAL};
  for (int lg = 0; lg <= 20; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<double> input(n);
    fill_wild(input.data(), n, rng);
    std::vector<std::size_t> positions = {0, n - 1, n / 2, n / 3};
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    for (int t = 0; t < 4; ++t) positions.push_back(pick(rng));
    std::vector<double> out(n);
    for (simd_level level : levels) {
      for (std::size_t pos : positions) {
        for (double bad : bad_values) {
          const double saved = input[pos];
          input[pos] = bad;
          for (double scale : {1.0, 0.5}) {
            if (kitchen::fwht_checked(input.data(), out.data(), n, level, scale)) {
              std::printf("MISSED non-finite n=2^%d level=%s pos=%zu value=%g\n", lg,
                          level_name(level), pos, bad);
              ok = false;
            }
            ++cases;
          }
          input[pos] = saved;
        }
      }
      // Finite input that overflows: still accepted.
      std::vector<double> big(n, 1.7e308);
      if (!kitchen::fwht_checked(big.data(), out.data(), n, level, 1.0)) {
        std::printf("overflowing finite input refused n=2^%d level=%s\n", lg, level_name(level));
        ok = false;
      }
      ++cases;
    }
  }
  std::printf("%ld finiteness cases (NA, NaN, -NaN, +-Inf at first/last/middle/random "
              "positions; overflowing finite input accepted): %s\n",
              cases, ok ? "all correct" : "FAILURES");
  return ok;
}

int run_check() {
  bool ok = check_definition();
  std::mt19937_64 rng(42);
  const auto levels = available_levels();
  const std::size_t offsets[] = {0, 1, 2, 5};  // doubles past a 64-byte boundary
  long compared = 0;
  for (int lg = 0; lg <= 22; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::vector<double> input(n), expected(n);
    fill_wild(input.data(), n, rng);
    expected = input;
    kitchen::fwht_scalar(expected.data(), n);
    for (simd_level level : levels) {
      for (std::size_t off : offsets) {
        if (lg > 16 && off != 0 && off != 2) continue;  // keep the big sizes quick
        Buffer buf(n, off);
        std::memcpy(buf.data, input.data(), n * sizeof(double));
        kitchen::fwht(buf.data, n, level);
        const bool same = std::memcmp(buf.data, expected.data(), n * sizeof(double)) == 0;
        if (!same || !buf.guards_ok()) {
          std::printf("MISMATCH n=2^%d level=%s offset=%zu (%s)\n", lg, level_name(level), off,
                      same ? "guard overwritten" : "values differ");
          ok = false;
        }
        ++compared;
      }
    }
  }
  // Many more trials for small and medium n, at every offset.
  long trials = 0;
  for (int lg = 0; lg <= 12; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    for (int t = 0; t < 50; ++t) {
      std::vector<double> input(n), expected(n);
      fill_wild(input.data(), n, rng);
      expected = input;
      kitchen::fwht_scalar(expected.data(), n);
      for (simd_level level : levels) {
        Buffer buf(n, std::size_t(t) % 8);
        std::memcpy(buf.data, input.data(), n * sizeof(double));
        kitchen::fwht(buf.data, n, level);
        if (std::memcmp(buf.data, expected.data(), n * sizeof(double)) != 0 || !buf.guards_ok()) {
          std::printf("MISMATCH (trial) n=2^%d level=%s\n", lg, level_name(level));
          ok = false;
        }
        ++trials;
      }
    }
  }
  std::printf("%ld random trials n = 2^0..2^12, offsets 0..7: %s\n", trials, ok ? "all identical" : "FAILURES");
  // Special values: signed zeros, subnormals, infinities, overflow to inf and
  // inf - inf. Bitwise identical except that NaN sign/payload may differ.
  {
    bool special_ok = true;
    // The first 6 are finite and small (signed zeros, subnormals): most
    // outputs stay finite. The rest overflow or are infinite.
    const double specials[] = {0.0, -0.0, 5e-324, -5e-324, 2.2e-308, -1e-310,
                               1e308, -1e308, HUGE_VAL, -HUGE_VAL};
    for (int trial = 0; trial < 2 * 15; ++trial) {
      const int lg = trial % 15;
      const std::size_t n = std::size_t(1) << lg;
      std::uniform_int_distribution<int> pick(0, trial < 15 ? 5 : 9);
      std::vector<double> input(n), expected(n);
      for (auto& v : input) v = specials[pick(rng)];
      expected = input;
      kitchen::fwht_scalar(expected.data(), n);
      for (simd_level level : levels) {
        std::vector<double> y = input;
        kitchen::fwht(y.data(), n, level);
        for (std::size_t i = 0; i < n; ++i) {
          const bool both_nan = std::isnan(y[i]) && std::isnan(expected[i]);
          if (!both_nan && std::memcmp(&y[i], &expected[i], sizeof(double)) != 0) special_ok = false;
        }
      }
    }
    std::printf("special values (+-0, subnormal, +-inf, overflow, NaN from inf-inf): %s\n",
                special_ok ? "identical (NaN compared as NaN)" : "FAILURES");
    ok = ok && special_ok;
  }
  // Involution sanity: H(H x) = n x, exact for small integers.
  for (simd_level level : levels) {
    const std::size_t n = 1 << 12;
    std::vector<double> x(n), y;
    for (std::size_t i = 0; i < n; ++i) x[i] = double(int(i % 17) - 8);
    y = x;
    kitchen::fwht(y.data(), n, level);
    kitchen::fwht(y.data(), n, level);
    for (std::size_t i = 0; i < n; ++i)
      if (y[i] != double(n) * x[i]) {
        std::printf("involution FAILED level=%s\n", level_name(level));
        ok = false;
        break;
      }
  }
  std::printf("%ld (n, level, offset) cases compared bitwise with fwht_scalar: %s\n", compared,
              ok ? "all identical" : "FAILURES");
  ok = check_out_of_place(rng, levels) && ok;
  ok = check_finiteness(rng, levels) && ok;
  std::printf("levels tested:");
  for (simd_level l : levels) std::printf(" %s", level_name(l));
  std::printf("\n");
  return ok ? 0 : 1;
}

// Median microseconds per vector for transforming a batch of vectors of
// length n laid out back to back (each starting `offset` doubles past a
// 64-byte boundary). The batch is restored from a pristine copy between
// timings so values never overflow.
double time_per_vector(std::size_t n, simd_level level, std::size_t offset, std::size_t batch_kb,
                       double min_ms) {
  const std::size_t stride = (n + 7) / 8 * 8 + 8;  // keeps every vector at the same offset
  const std::size_t count = std::max<std::size_t>(1, batch_kb * 1024 / (n * sizeof(double)));
  Buffer buf(stride * count, offset);
  std::mt19937_64 rng(1);
  fill_wild(buf.data, stride * count, rng);
  const std::vector<double> pristine(buf.data, buf.data + stride * count);

  using clock = std::chrono::steady_clock;
  std::vector<double> samples;
  const auto start = clock::now();
  while (samples.size() < 5 ||
         (std::chrono::duration<double, std::milli>(clock::now() - start).count() < min_ms &&
          samples.size() < 100000)) {
    std::memcpy(buf.data, pristine.data(), pristine.size() * sizeof(double));
    const auto t0 = clock::now();
    for (std::size_t v = 0; v < count; ++v) kitchen::fwht(buf.data + v * stride, n, level);
    const auto t1 = clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / count);
  }
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

// Out-of-place variants timed the way R uses them: input vectors back to
// back in a batch of `cold_mb` MB (beyond the caches, so every vector comes
// from DRAM, as the columns of a big R matrix), each transformed into the
// matching place of an output batch of the same size. One timing = one sweep
// over the batch; median over repeats.
enum class variant {
  copy_check_inplace,  // the old glue: memcpy, all_finite on the copy, in place
  oop,                 // fwht(in, out): no check
  finite_then_oop,     // all_finite(in), then fwht(in, out)
  checked,             // fwht_checked(in, out): check fused into the first pass
  checked_scaled,      // fwht_checked(in, out, scale): also scaled in the last pass
  copy_check_inplace_scaled  // the old glue with normalize: + multiply loop
};

const char* variant_name(variant v) {
  switch (v) {
    case variant::copy_check_inplace: return "copy+chk+ip";
    case variant::oop: return "oop";
    case variant::finite_then_oop: return "chk+oop";
    case variant::checked: return "oop_checked";
    case variant::checked_scaled: return "oop_chk_scl";
    default: return "cp+chk+ip+scl";
  }
}

double time_cold(std::size_t n, simd_level level, variant var, std::size_t offset,
                 std::size_t cold_mb, double min_ms) {
  const std::size_t count = std::max<std::size_t>(2, cold_mb * 1024 * 1024 / (n * sizeof(double)));
  Buffer in(n * count, offset), out(n * count, offset);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> norm;
  for (std::size_t i = 0; i < n * count; ++i) in.data[i] = norm(rng);
  std::memset(out.data, 0, n * count * sizeof(double));  // fault the pages in
  const double scale = 1.0 / std::sqrt(double(n));
  volatile bool all_ok = true;
  using clock = std::chrono::steady_clock;
  std::vector<double> samples;
  const auto start = clock::now();
  while (samples.size() < 5 ||
         (std::chrono::duration<double, std::milli>(clock::now() - start).count() < min_ms &&
          samples.size() < 10000)) {
    bool ok = true;
    const auto t0 = clock::now();
    for (std::size_t v = 0; v < count; ++v) {
      const double* x = in.data + v * n;
      double* y = out.data + v * n;
      switch (var) {
        case variant::copy_check_inplace:
        case variant::copy_check_inplace_scaled:
          std::memcpy(y, x, n * sizeof(double));
          ok = kitchen::all_finite(y, n) && ok;
          kitchen::fwht(y, n, level);
          if (var == variant::copy_check_inplace_scaled)
            for (std::size_t i = 0; i < n; ++i) y[i] *= scale;
          break;
        case variant::oop: kitchen::fwht(x, y, n, level); break;
        case variant::finite_then_oop:
          ok = kitchen::all_finite(x, n) && ok;
          kitchen::fwht(x, y, n, level);
          break;
        case variant::checked: ok = kitchen::fwht_checked(x, y, n, level) && ok; break;
        default: ok = kitchen::fwht_checked(x, y, n, level, scale) && ok; break;
      }
    }
    const auto t1 = clock::now();
    all_ok = all_ok && ok;
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / count);
  }
  if (!all_ok) std::printf("(unexpected non-finite report)\n");
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  return samples[samples.size() / 2];
}

int run_bench(int argc, char** argv) {
  std::size_t offset = 2, batch_kb = 512, cold_mb = 64;
  double min_ms = 300;
  int max_log2 = 22;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--offset") offset = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--batch-kb") batch_kb = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--min-ms") min_ms = std::atof(argv[i + 1]);
    else if (a == "--max-log2") max_log2 = std::atoi(argv[i + 1]);
    else if (a == "--cold-mb") cold_mb = std::strtoul(argv[i + 1], nullptr, 10);
  }
  const auto levels = available_levels();
  std::printf("median us per vector; offset %zu doubles from 64-byte alignment; batch %zu KB\n",
              offset, batch_kb);
  std::printf("%8s", "log2(n)");
  for (simd_level l : levels) std::printf(" %12s", level_name(l));
  std::printf("\n");
  for (int lg = 1; lg <= max_log2; ++lg) {
    const std::size_t n = std::size_t(1) << lg;
    std::printf("%8d", lg);
    for (simd_level l : levels) std::printf(" %12.4f", time_per_vector(n, l, offset, batch_kb, min_ms));
    std::printf("\n");
    std::fflush(stdout);
  }
  const variant variants[] = {variant::copy_check_inplace, variant::oop, variant::finite_then_oop,
                              variant::checked, variant::copy_check_inplace_scaled,
                              variant::checked_scaled};
  for (simd_level l : levels) {
    std::printf("\nout of place, %s: median us per vector, input from a cold %zu MB batch into "
                "an output batch of the same size\n", level_name(l), cold_mb);
    std::printf("%8s", "log2(n)");
    for (variant v : variants) std::printf(" %14s", variant_name(v));
    std::printf("\n");
    for (int lg = 1; lg <= max_log2; ++lg) {
      const std::size_t n = std::size_t(1) << lg;
      std::printf("%8d", lg);
      for (variant v : variants) std::printf(" %14.4f", time_cold(n, l, v, offset, cold_mb, min_ms));
      std::printf("\n");
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "check";
  if (mode == "check") return run_check();
  if (mode == "bench") return run_bench(argc, argv);
  std::fprintf(stderr, "usage: %s check | bench [--offset K] [--batch-kb B] [--min-ms T] [--max-log2 M] "
               "[--cold-mb C]\n",
               argv[0]);
  return 2;
}
