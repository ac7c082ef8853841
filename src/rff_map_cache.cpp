// See rff_map_cache.h.
#include "rff_map_cache.h"

#include <cmath>
#include <list>

#include "kitchen/gemm_simd.hpp"
#include "kitchen/rff.hpp"

namespace kitchen_glue {

namespace {

struct cache_entry {
  SEXP holder;  // a preserved list holding projection, center and phase
  std::shared_ptr<const rff_derived> derived;
};

// Two maps: a fit's and another one in use beside it.
const std::size_t cache_size = 2;

std::list<cache_entry>& cache() {
  static std::list<cache_entry>* entries = new std::list<cache_entry>();
  return *entries;
}

bool holds(SEXP holder, SEXP projection, SEXP center, SEXP phase) {
  return VECTOR_ELT(holder, 0) == projection && VECTOR_ELT(holder, 1) == center &&
         VECTOR_ELT(holder, 2) == phase;
}

}  // namespace

std::shared_ptr<const rff_derived> cached_rff_derived(SEXP projection, SEXP center, SEXP phase) {
  const std::size_t d = Rf_nrows(projection), m = Rf_ncols(projection);
  // The bound counts the copy as stored, its rows padded (at m = 1, 8 times P).
  const std::size_t ld = kitchen::gemm_transposed_stride(m);
  if (d * ld > rff_cache_max_entries) return nullptr;
  std::list<cache_entry>& entries = cache();
  for (auto it = entries.begin(); it != entries.end(); ++it) {
    if (holds(it->holder, projection, center, phase)) {
      entries.splice(entries.begin(), entries, it);  // most recently used first
      return it->derived;
    }
  }
  auto derived = std::make_shared<rff_derived>();
  derived->offset.resize(m);
  const double* p = REAL(projection);
  kitchen::rff_offset(p, d, m, REAL(center), phase == R_NilValue ? nullptr : REAL(phase),
                      derived->offset.data());
  for (std::size_t k = 0; k < m; ++k) {
    if (!std::isfinite(derived->offset[k])) return nullptr;  // reported by the caller
  }
  derived->transposed.resize(d * ld);  // the padding past column m stays 0
  for (std::size_t j = 0; j < m; ++j) {
    for (std::size_t k = 0; k < d; ++k) derived->transposed[k * ld + j] = p[k + j * d];
  }
  // Evict before allocating the holder, so that an allocation error leaves
  // the cache consistent.
  while (entries.size() >= cache_size) {
    R_ReleaseObject(entries.back().holder);
    entries.pop_back();
  }
  SEXP holder = PROTECT(Rf_allocVector(VECSXP, 3));
  SET_VECTOR_ELT(holder, 0, projection);
  SET_VECTOR_ELT(holder, 1, center);
  SET_VECTOR_ELT(holder, 2, phase);
  R_PreserveObject(holder);
  UNPROTECT(1);
  entries.push_front(cache_entry{holder, derived});
  return derived;
}

}  // namespace kitchen_glue
