// Glue for building an rbin map from chunked data: the union, grid by grid,
// of two tables of occupied bins (each grid's keys sorted and distinct, as
// rbin_build_cpp() returns them), so that tables built chunk by chunk merge
// into the table of all rows.
#include <Rcpp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "kitchen/rbin.hpp"

namespace {

// Grid g's keys of a table, copied out (keys are raw bytes in R).
bool read_table(Rcpp::RawVector keys, Rcpp::IntegerVector n_bins,
                std::vector<std::uint64_t>& out, std::vector<std::size_t>& first) {
  first.assign(n_bins.size() + 1, 0);
  for (R_xlen_t g = 0; g < n_bins.size(); ++g) {
    if (n_bins[g] < 0) return false;
    first[g + 1] = first[g] + n_bins[g];
  }
  if (static_cast<std::size_t>(keys.size()) != first.back() * sizeof(std::uint64_t)) return false;
  out.resize(first.back());
  if (!out.empty()) std::memcpy(out.data(), keys.begin(), keys.size());
  for (R_xlen_t g = 0; g < n_bins.size(); ++g) {
    if (!kitchen::rbin_keys_sorted(out.data() + first[g], n_bins[g])) return false;
  }
  return true;
}

}  // namespace

// list(keys, n_bins) of the union of tables a and b (the same number of
// grids), or a string saying what is wrong with them.
// [[Rcpp::export(rng = false)]]
SEXP rbin_merge_keys_cpp(Rcpp::RawVector keys_a, Rcpp::IntegerVector n_bins_a,
                         Rcpp::RawVector keys_b, Rcpp::IntegerVector n_bins_b) {
  if (n_bins_a.size() != n_bins_b.size()) {
    return Rf_mkString("The bin tables must have the same number of grids.");
  }
  std::vector<std::uint64_t> a, b;
  std::vector<std::size_t> first_a, first_b;
  if (!read_table(keys_a, n_bins_a, a, first_a) || !read_table(keys_b, n_bins_b, b, first_b)) {
    return Rf_mkString("The bin tables must hold, per grid, as many sorted distinct keys as {.field n_bins} says.");
  }
  const std::size_t n_grids = n_bins_a.size();
  std::vector<std::uint64_t> merged;
  merged.reserve(a.size() + b.size());
  Rcpp::IntegerVector n_bins(n_grids);
  for (std::size_t g = 0; g < n_grids; ++g) {
    const std::size_t before = merged.size();
    std::set_union(a.begin() + first_a[g], a.begin() + first_a[g + 1], b.begin() + first_b[g],
                   b.begin() + first_b[g + 1], std::back_inserter(merged));
    if (merged.size() - before > 2147483647.0) {
      return Rf_mkString("A grid has more than 2^31 - 1 occupied bins.");
    }
    n_bins[g] = static_cast<int>(merged.size() - before);
  }
  Rcpp::RawVector keys(merged.size() * sizeof(std::uint64_t));
  if (!merged.empty()) std::memcpy(keys.begin(), merged.data(), keys.size());
  return Rcpp::List::create(Rcpp::Named("keys") = keys, Rcpp::Named("n_bins") = n_bins);
}
