// Why kitchen keeps one TBB arena per thread count for the whole session
// (src/parallel_chunks.h). Not part of the R package; see README.md here.
//
//   tbb_arena [--batches 12] [--calls 2000]
//
// Times a tiny 2-thread parallel_for (two tasks of 1024 multiply-adds) in
// batches of --calls calls, two ways side by side:
//   per call  a new tbb::task_arena for every call, as RcppParallel's
//             parallelFor does (tbbParallelFor in RcppParallel/TBB.h);
//   kept      one arena made before the first call and reused.
// Prints CSV: batch, microseconds per call for each way.
#include <tbb/tbb.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

std::vector<double> data(2048, 1.0);

void one_call(tbb::task_arena& arena) {
  arena.execute([] {
    tbb::task_group group;
    group.run_and_wait([] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, 2, 1),
                        [](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin() * 1024; i < r.end() * 1024; ++i)
                            data[i] = data[i] * 1.0000001 + 1.0;
                        });
    });
  });
}

template <class F>
double us_per_call(int calls, F f) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls * 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  int batches = 12, calls = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--batches") batches = std::atoi(argv[i + 1]);
    else if (a == "--calls") calls = std::atoi(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  tbb::task_arena kept(2);
  std::printf("batch,per_call_arena_us,kept_arena_us\n");
  for (int b = 1; b <= batches; ++b) {
    const double fresh = us_per_call(calls, [] {
      tbb::task_arena arena(2);
      one_call(arena);
    });
    const double reused = us_per_call(calls, [&] { one_call(kept); });
    std::printf("%d,%.3g,%.3g\n", b, fresh, reused);
  }
  return 0;
}
