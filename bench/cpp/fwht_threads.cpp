// How fwht() scales from 1 to 2 threads, next to what the memory system
// allows. Not part of the R package. See README.md in this folder.
//
//   fwht_threads [--log2 10,12,16,20] [--matrix-mb 16] [--min-ms 100] [--repeats 11]
//
// For each n, a matrix of --matrix-mb MB (n-long columns, 16-byte aligned
// like R's vectors) is transformed into an output matrix of the same size,
// both already faulted in, the way the R glue does it: fwht_checked() per
// column, each thread on a contiguous share of the columns. Three workloads,
// each timed with 1 and 2 threads:
//   transform  the matrix as above (memory-bound when it exceeds the caches);
//   x + 0      out = in + 0 over the same shares, as R's `x + 0`: the bytes
//              every out-of-place pass moves, without the transform (a plain
//              loop, where memcpy would switch strategy with the size);
//   in cache   each thread transforms a private 256 KB block again and again
//              (one column if n is larger): the compute alone.
// Output: median microseconds per column over --repeats timings of at least
// --min-ms each, and the 2-thread speed-up of each workload.
#include <kitchen/fwht.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

// n_doubles doubles starting 2 doubles past a 64-byte boundary (as R's
// vectors usually start), written once so every page is faulted in.
struct Matrix {
  std::vector<double> storage;
  double* data;
  Matrix(std::size_t n_doubles, std::mt19937_64& rng) : storage(n_doubles + 16) {
    auto p = reinterpret_cast<std::uintptr_t>(storage.data());
    data = reinterpret_cast<double*>((p + 63) & ~std::uintptr_t(63)) + 2;
    std::normal_distribution<double> norm;
    for (std::size_t i = 0; i < n_doubles; ++i) data[i] = norm(rng);
  }
};

// Runs work(thread, share_begin, share_end) on `threads` threads over
// [0, units), repeatedly, until min_ms have passed; returns seconds per sweep.
double seconds_per_sweep(int threads, std::size_t units, double min_ms,
                         const std::function<void(std::size_t, std::size_t)>& work) {
  auto run = [&](long sweeps) {
    const auto start = clock_type::now();
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const std::size_t b = units * t / threads, e = units * (t + 1) / threads;
        for (long s = 0; s < sweeps; ++s) work(b, e);
      });
    }
    const std::size_t e0 = units / threads;
    for (long s = 0; s < sweeps; ++s) work(0, e0);
    for (auto& th : pool) th.join();
    return std::chrono::duration<double>(clock_type::now() - start).count();
  };
  long sweeps = 1;
  run(1);  // warm up
  while (run(sweeps) * 1e3 < min_ms) sweeps *= 2;
  return run(sweeps) / sweeps;
}

double median_of(int repeats, const std::function<double()>& f) {
  std::vector<double> t(repeats);
  for (auto& v : t) v = f();
  std::sort(t.begin(), t.end());
  return t[repeats / 2];
}

std::vector<int> parse_list(const std::string& s) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::atoi(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> logs = {10, 12, 16, 20};
  std::size_t matrix_mb = 16;
  double min_ms = 100;
  int repeats = 11;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--log2") logs = parse_list(argv[i + 1]);
    else if (a == "--matrix-mb") matrix_mb = std::strtoul(argv[i + 1], nullptr, 10);
    else if (a == "--min-ms") min_ms = std::atof(argv[i + 1]);
    else if (a == "--repeats") repeats = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const kitchen::simd_level level = kitchen::detect_simd();
  std::mt19937_64 rng(1);
  std::printf("log2_n,columns,workload,us_per_column_1t,us_per_column_2t,speedup\n");
  for (int lg : logs) {
    const std::size_t n = std::size_t(1) << lg;
    const std::size_t cols = std::max<std::size_t>(8, (matrix_mb << 20) / (8 * n));
    Matrix in(n * cols, rng), out(n * cols, rng);
    auto transform = [&](std::size_t b, std::size_t e) {
      for (std::size_t j = b; j < e; ++j)
        if (!kitchen::fwht_checked(in.data + j * n, out.data + j * n, n, level)) std::abort();
    };
    auto plus_zero = [&](std::size_t b, std::size_t e) {
      const double* src = in.data + b * n;
      double* dst = out.data + b * n;
      for (std::size_t i = 0, len = (e - b) * n; i < len; ++i) dst[i] = src[i] + 0.0;
    };
    // In cache: thread t works on its own block of in/out at t's share start.
    const std::size_t cache_cols = std::max<std::size_t>(1, (std::size_t(256) << 10) / (8 * n));
    auto in_cache = [&](std::size_t b, std::size_t) {
      for (std::size_t j = b; j < b + cache_cols; ++j)
        if (!kitchen::fwht_checked(in.data + j * n, out.data + j * n, n, level)) std::abort();
    };
    // per_thread: each thread does `cols` columns per sweep (else all threads together).
    struct Row { const char* name; std::function<void(std::size_t, std::size_t)> work; std::size_t cols; bool per_thread; };
    const Row rows[] = {{"transform", transform, cols, false},
                        {"x + 0", plus_zero, cols, false},
                        {"in cache", in_cache, cache_cols, true}};
    for (const Row& r : rows) {
      double per_col[2];
      for (int threads = 1; threads <= 2; ++threads) {
        const std::size_t done = r.per_thread ? r.cols * threads : r.cols;
        per_col[threads - 1] = 1e6 * median_of(repeats, [&] {
          return seconds_per_sweep(threads, cols, min_ms, r.work);
        }) / done;
      }
      std::printf("%d,%zu,%s,%.4g,%.4g,%.3g\n", lg, r.cols, r.name, per_col[0], per_col[1],
                  per_col[0] / per_col[1]);
    }
  }
  return 0;
}
