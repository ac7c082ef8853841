// What an rff map's predictions derive from its numbers, kept per map for
// the session, so that a prediction of a few rows does not pay a d x m pass
// for the offset (as much arithmetic as the features of one row) nor read P
// column by column.
//
// A map is a plain R list, so nothing is stored in it (saveRDS() of maps is
// unchanged): as for rbin's bin tables (rbin_index_cache.h), the cache holds
// the R vectors themselves (projection, center, phases; preserved, so their
// addresses are never reused, and R copies them before any change) with
// what was computed from them. Only maps whose padded copy of P holds at
// most rff_cache_max_entries numbers are cached. Called on R's main thread only.
#pragma once

#include <Rinternals.h>

#include <cstddef>
#include <memory>
#include <vector>

namespace kitchen_glue {

// Largest copy of P transposed (d x its padded row stride, doubles) that is
// cached: 32 MB, and at most as much for P itself.
const std::size_t rff_cache_max_entries = std::size_t(1) << 22;

struct rff_derived {
  std::vector<double> offset;      // kitchen::rff_offset(), all finite
  // P transposed, rows padded (kitchen::gemm_transposed_stride(m), ld):
  // transposed[k * ld + j] = P[k, j].
  std::vector<double> transposed;
};

// The derived numbers of a d x m projection (checked shapes) with its center
// and phase (R_NilValue for cos_sin), from the cache or computed; nullptr
// when the map is too large to cache or an offset is not finite (the caller
// computes and checks them itself).
std::shared_ptr<const rff_derived> cached_rff_derived(SEXP projection, SEXP center, SEXP phase);

}  // namespace kitchen_glue
