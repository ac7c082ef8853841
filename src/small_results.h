// Fresh R vectors for the results of small calls, from a pool of blocks
// that stay resident. A small call that allocates little else lets R's
// collector free its results in bulk, glibc then returns the top of the heap
// to the system, and the next results touch fresh pages: two page faults
// per 8 KB result cost more than a 1024-long fwht() on these machines
// (bench/results/latency.md). Blocks given back by the collector are kept
// (at most pool_blocks of at most pool_block_bytes) and handed out again.
#pragma once

#include <Rinternals.h>

#include <cstddef>

namespace kitchen_glue {

// Like Rf_allocVector(type, length) (unprotected), the memory from the pool.
SEXP alloc_small_result(SEXPTYPE type, R_xlen_t length);

}  // namespace kitchen_glue
