// See small_results.h. R calls the allocator's functions on its main thread
// (mem_free from the garbage collector): they touch no R object and never
// throw.
#include "small_results.h"

#include <R_ext/Rallocators.h>

#include <cstdlib>

namespace kitchen_glue {

namespace {

const std::size_t pool_blocks = 64;
const std::size_t pool_max_bytes = std::size_t(8) << 20;  // all blocks together
// Bytes before the block R sees: its size (16, to keep malloc's alignment).
const std::size_t header = 16;

void* pooled[pool_blocks];
std::size_t pooled_bytes[pool_blocks];
std::size_t n_pooled = 0;
std::size_t pooled_total = 0;

void* pool_alloc(R_allocator_t*, std::size_t bytes) {
  for (std::size_t i = n_pooled; i-- > 0;) {
    if (pooled_bytes[i] == bytes) {
      char* block = static_cast<char*>(pooled[i]);
      --n_pooled;
      pooled_total -= bytes;
      pooled[i] = pooled[n_pooled];
      pooled_bytes[i] = pooled_bytes[n_pooled];
      return block + header;
    }
  }
  char* block = static_cast<char*>(std::malloc(bytes + header));
  if (block == nullptr) return nullptr;
  *reinterpret_cast<std::size_t*>(block) = bytes;
  return block + header;
}

void pool_free(R_allocator_t*, void* p) {
  char* block = static_cast<char*>(p) - header;
  const std::size_t bytes = *reinterpret_cast<std::size_t*>(block);
  if (n_pooled < pool_blocks && bytes <= pool_max_bytes - pooled_total) {
    pooled[n_pooled] = block;
    pooled_bytes[n_pooled] = bytes;
    pooled_total += bytes;
    ++n_pooled;
  } else {
    std::free(block);
  }
}

R_allocator_t pool_allocator = {pool_alloc, pool_free, nullptr, nullptr};

}  // namespace

SEXP alloc_small_result(SEXPTYPE type, R_xlen_t length) {
  return Rf_allocVector3(type, length, &pool_allocator);
}

}  // namespace kitchen_glue
