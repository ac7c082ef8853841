// Glue for the median heuristic's pairwise distances
// (kitchen/pairwise_distances.hpp): rows copied to contiguous memory on the
// calling thread, pairs spread over threads by their second row.
#include <Rcpp.h>

#include <vector>

#include "kitchen/pairwise_distances.hpp"
#include "parallel_chunks.h"

// x: n x d, finite (checked by the caller). Returns the n (n - 1) / 2
// distances in dist()'s order.
// [[Rcpp::export(rng = false)]]
Rcpp::NumericVector pairwise_distances_cpp(Rcpp::NumericMatrix x, bool manhattan, int n_threads) {
  const std::size_t n = x.nrow(), d = x.ncol();
  std::vector<double> rows(n * d);
  for (std::size_t k = 0; k < d; ++k) {
    for (std::size_t i = 0; i < n; ++i) rows[i * d + k] = x(i, k);
  }
  Rcpp::NumericVector out(n < 2 ? 0 : n * (n - 1) / 2);
  double* o = out.begin();
  const double* r = rows.data();
  kitchen_glue::parallel_for_chunks(n, static_cast<double>(n) * d, n_threads,
                                    [&](std::size_t begin, std::size_t end) {
    kitchen::pairwise_distances(r, n, d, manhattan, begin, end, o);
  });
  return out;
}
