// The lookup tables of an rbin map's bin keys (one kitchen::bin_index per
// grid), built once per map and kept for the session, so that finding the
// columns of a few rows costs O(n_grids) and not O(number of bins).
//
// A map is a plain R list, so nothing is stored in it (saveRDS() of maps,
// old and new, is unchanged): the cache holds, for the last few key
// vectors it saw, the R vector itself (preserved, so its address is never
// reused and R copies it before any change), a copy of n_bins, and the
// tables. A map matches an entry when its keys are that very vector and
// its n_bins are equal. Called on R's main thread only.
#pragma once

#include <Rcpp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kitchen/rbin.hpp"

namespace kitchen_glue {

struct rbin_tables {
  std::vector<std::uint64_t> keys;   // copy of the map's keys, all grids
  std::vector<std::size_t> first;    // grid g's keys: [first[g], first[g + 1])
  std::vector<std::unique_ptr<kitchen::bin_index>> tables;  // point into keys
};

// The tables of (keys, n_bins), from the cache or built (after checking
// that the keys fit n_bins and are sorted and distinct within each grid).
// Returns nullptr and sets *problem (cli markup) if they are not.
std::shared_ptr<const rbin_tables> cached_rbin_tables(SEXP keys, Rcpp::IntegerVector n_bins,
                                                      int n_threads, const char** problem);

}  // namespace kitchen_glue
