// See rbin_index_cache.h.
#include "rbin_index_cache.h"

#include <cstring>
#include <list>

#include "parallel_chunks.h"

namespace kitchen_glue {

namespace {

struct cache_entry {
  SEXP holder;  // a preserved list holding the keys vector
  std::vector<int> n_bins;
  std::shared_ptr<const rbin_tables> tables;
};

// Two maps: a fit's and a candidate's in a bandwidth search. Each entry keeps
// its keys alive (8 bytes a bin) and a copy with the tables (about 10).
const std::size_t cache_size = 2;

std::list<cache_entry>& cache() {
  static std::list<cache_entry>* entries = new std::list<cache_entry>();
  return *entries;
}

bool same_counts(const std::vector<int>& stored, Rcpp::IntegerVector n_bins) {
  return stored.size() == static_cast<std::size_t>(n_bins.size()) &&
         std::equal(stored.begin(), stored.end(), n_bins.begin());
}

std::shared_ptr<const rbin_tables> build_tables(SEXP keys, Rcpp::IntegerVector n_bins,
                                                int n_threads, const char** problem) {
  const std::size_t n_grids = n_bins.size();
  auto out = std::make_shared<rbin_tables>();
  out->first.assign(n_grids + 1, 0);
  for (std::size_t g = 0; g < n_grids; ++g) out->first[g + 1] = out->first[g] + n_bins[g];
  const std::size_t total = out->first[n_grids];
  if (static_cast<std::size_t>(Rf_xlength(keys)) != total * sizeof(std::uint64_t)) {
    *problem = "{.field keys} must hold 8 bytes per bin in {.field n_bins}.";
    return nullptr;
  }
  out->keys.resize(total);
  if (total > 0) std::memcpy(out->keys.data(), RAW(keys), total * sizeof(std::uint64_t));
  bool sorted = true;
  for (std::size_t g = 0; g < n_grids; ++g) {
    sorted = sorted && kitchen::rbin_keys_sorted(out->keys.data() + out->first[g], n_bins[g]);
  }
  if (!sorted) {
    *problem = "{.field keys} must be sorted and distinct within each grid.";
    return nullptr;
  }
  out->tables.resize(n_grids);
  rbin_tables& built = *out;
  parallel_for_chunks(n_grids, 4.0 * total / std::max<std::size_t>(n_grids, 1) + 1.0, n_threads,
                      [&](std::size_t begin, std::size_t end) {
    for (std::size_t g = begin; g < end; ++g) {
      built.tables[g].reset(new kitchen::bin_index(built.keys.data() + built.first[g],
                                                   built.first[g + 1] - built.first[g]));
    }
  });
  return out;
}

}  // namespace

std::shared_ptr<const rbin_tables> cached_rbin_tables(SEXP keys, Rcpp::IntegerVector n_bins,
                                                      int n_threads, const char** problem) {
  std::list<cache_entry>& entries = cache();
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (VECTOR_ELT(it->holder, 0) == keys && same_counts(it->n_bins, n_bins)) {
      entries.splice(entries.begin(), entries, it);  // most recently used first
      return it->tables;
    }
  }
  std::shared_ptr<const rbin_tables> tables = build_tables(keys, n_bins, n_threads, problem);
  if (!tables) return nullptr;
  // Evict before allocating the holder, so that an allocation error leaves
  // the cache consistent.
  while (entries.size() >= cache_size) {
    R_ReleaseObject(entries.back().holder);
    entries.pop_back();
  }
  SEXP holder = PROTECT(Rf_allocVector(VECSXP, 1));
  SET_VECTOR_ELT(holder, 0, keys);
  R_PreserveObject(holder);
  UNPROTECT(1);
  entries.push_front(cache_entry{holder, std::vector<int>(n_bins.begin(), n_bins.end()), tables});
  return tables;
}

}  // namespace kitchen_glue
