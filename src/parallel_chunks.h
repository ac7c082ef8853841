// Spreading independent units of work (columns, rows) over threads.
//
// Workers only run `body` on raw memory prepared by the caller on the main
// thread; they never touch the R API. Between chunks, the main thread checks
// for a user interrupt, so long calls stop promptly.
#pragma once

#include <Rcpp.h>

// The pieces of RcppParallel.h we use. Its RMatrix.h and RVector.h (not
// needed here) use std::iterator, deprecated in C++17, which R CMD check
// reports as a significant warning.
// TBB where RcppParallel.h would use it (same rule as there).
#ifndef RCPP_PARALLEL_USE_TBB
#if defined(__APPLE__) || defined(__gnu_linux__) || (defined(__sun) && defined(__SVR4) && !defined(__sparc))
#define RCPP_PARALLEL_USE_TBB 1
#else
#define RCPP_PARALLEL_USE_TBB 0
#endif
#endif
#include <RcppParallel/TinyThread.h>
#if RCPP_PARALLEL_USE_TBB
#include <RcppParallel/TBB.h>
#endif
#include <RcppParallel/Backend.h>

#include <algorithm>
#include <cstddef>
#include <map>

namespace kitchen_glue {

#if RCPP_PARALLEL_USE_TBB
// The TBB arena for n_threads threads, made on first use and kept for the
// session. RcppParallel's tbbParallelFor makes and destroys an arena per
// call, and oneTBB (2021.8 here) gets slower with every arena it has
// destroyed: a tiny 2-thread call went from 11 us to 290 us after 24,000
// calls, while a kept arena stays at 1 us (bench/cpp/tbb_arena.cpp).
// Called on R's main thread only. Never freed: destroying arenas at exit
// could race with TBB's own shutdown.
inline tbb::task_arena& session_arena(int n_threads) {
  static std::map<int, tbb::task_arena*>* arenas = new std::map<int, tbb::task_arena*>();
  tbb::task_arena*& arena = (*arenas)[n_threads];
  if (arena == nullptr) arena = new tbb::task_arena(n_threads);
  return *arena;
}
#endif

// RcppParallel::parallelFor without its environment-variable overrides:
// the TBB backend where available, in an arena of n_threads threads kept
// for the session, else TinyThread.
inline void parallel_for(std::size_t begin, std::size_t end, RcppParallel::Worker& worker,
                         std::size_t grain, int n_threads) {
#if RCPP_PARALLEL_USE_TBB
  if (RcppParallel::internal::backend() == RcppParallel::internal::BACKEND_TBB) {
    session_arena(n_threads).execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(begin, end, grain),
                        [&](const tbb::blocked_range<std::size_t>& r) { worker(r.begin(), r.end()); });
    });
    return;
  }
#endif
  RcppParallel::ttParallelFor(begin, end, worker, grain);
}

template <class Body>
struct BodyWorker : public RcppParallel::Worker {
  Body& body;
  explicit BodyWorker(Body& b) : body(b) {}
  void operator()(std::size_t begin, std::size_t end) override { body(begin, end); }
};

// Calls body(begin, end) on disjoint ranges covering [0, n_units). Each unit
// costs about `unit_cost` elementary operations; chunks are sized so the main
// thread regains control every few tens of milliseconds, and single-threaded
// or tiny jobs run inline without starting threads.
template <class Body>
void parallel_for_chunks(std::size_t n_units, double unit_cost, int n_threads, Body body) {
  if (n_units == 0) return;
  const double ops_per_chunk = 5e7;   // roughly 20-50 ms of work
  const double ops_per_task = 2e4;    // below this, a task is not worth a thread
  // At least one unit per thread, or expensive units would run one at a time.
  const std::size_t chunk = std::max<std::size_t>(std::max(1, n_threads),
                                                  static_cast<std::size_t>(ops_per_chunk / unit_cost));
  const std::size_t grain = std::max<std::size_t>(1, static_cast<std::size_t>(ops_per_task / unit_cost));
  BodyWorker<Body> worker(body);
  for (std::size_t begin = 0; begin < n_units; begin += chunk) {
    const std::size_t end = std::min(n_units, begin + chunk);
    if (n_threads <= 1 || end - begin <= grain) {
      body(begin, end);
    } else {
      parallel_for(begin, end, worker, grain, n_threads);
    }
    if (end < n_units) Rcpp::checkUserInterrupt();
  }
}

// parallel_for_chunks as the callable the core's reductions take
// (tridiagonal.hpp, band_reduction.hpp): parallel(n_units, unit_cost, body).
struct chunk_runner {
  int n_threads;
  template <class Body>
  void operator()(std::size_t n_units, double unit_cost, Body body) const {
    parallel_for_chunks(n_units, unit_cost, n_threads, body);
  }
};

}  // namespace kitchen_glue
