// Checking the arrays of a compressed sparse column matrix before any loop
// indexes with them: a malformed matrix (edited slots, a broken
// serialisation) must give a message, not an out-of-bounds read or write.
#pragma once

#include <cstddef>

namespace kitchen {

// Column pointers p[0..n_cols] and row indices i[0..nnz) of an n_rows x
// n_cols matrix with nnz = i_len stored values (x_len of them given).
// Returns nullptr when p starts at 0, never decreases and ends at nnz, every
// row index lies in [0, n_rows) and increases strictly within its column,
// and x has one value per index; else what is wrong. One pass over p and i.
inline const char* csc_problem(const int* p, std::size_t p_len, const int* i, std::size_t i_len,
                               std::size_t x_len, long long n_rows, long long n_cols) {
  if (n_rows < 0 || n_cols < 0) return "its dimensions must not be negative";
  if (p_len != static_cast<std::size_t>(n_cols) + 1) {
    return "its column pointers (slot p) must number one more than its columns";
  }
  if (p[0] != 0) return "its column pointers (slot p) must start at 0";
  for (std::size_t j = 0; j < static_cast<std::size_t>(n_cols); ++j) {
    if (p[j + 1] < p[j]) return "its column pointers (slot p) must not decrease";
  }
  if (static_cast<std::size_t>(p[n_cols]) != i_len) {
    return "its last column pointer (slot p) must equal the number of row indices (slot i)";
  }
  if (x_len != i_len) return "its values (slot x) must number as many as its row indices (slot i)";
  for (std::size_t j = 0; j < static_cast<std::size_t>(n_cols); ++j) {
    long long previous = -1;
    for (int k = p[j]; k < p[j + 1]; ++k) {
      if (i[k] <= previous || i[k] >= n_rows) {
        return "its row indices (slot i) must lie in [0, nrow) and increase within each column";
      }
      previous = i[k];
    }
  }
  return nullptr;
}

}  // namespace kitchen
