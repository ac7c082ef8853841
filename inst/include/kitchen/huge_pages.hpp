// Asking the kernel for transparent huge pages on large fresh buffers.
//
// The first touch of freshly allocated memory costs a page fault per 4 KB
// page, which dominates cheap passes over large results; with 2 MB pages
// there are 512 times fewer faults. Only advice: harmless where unsupported.
// On these VMs it pays for buffers made again and again (fwht() of 2^24
// numbers, repeated: 0.075 s with it, 0.18 s without). A 2 MB page new to
// the host has cost more to touch first than 512 small ones on some days
// (1.6 GB in a new process, 11-27, AVX2 machine: 0.25-5.8 s advised,
// 1.2-2.0 s not) and far less on others (11-30, AVX-512: 3.1 s advised,
// 4.6-6.5 s not; again in the same process 0.14 s against 4.7 s): advised,
// the worst case is bounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace kitchen {

// Advises huge pages for the 2 MB-aligned part of [p, p + bytes), if the
// buffer is large enough for that to matter. Call before the first write.
inline void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uintptr_t huge = std::uintptr_t(1) << 21;
  if (bytes < 2 * huge) return;
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// std::allocator with the advice above on each allocation, before the
// vector first writes it: for scratch vectors of hundreds of megabytes that
// are read at random (binned_cg.hpp) as well as made again and again.
template <class T>
struct huge_page_allocator {
  using value_type = T;
  huge_page_allocator() = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    T* p = std::allocator<T>().allocate(n);
    advise_huge_pages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, std::size_t n) noexcept { std::allocator<T>().deallocate(p, n); }
};

template <class T, class U>
bool operator==(const huge_page_allocator<T>&, const huge_page_allocator<U>&) noexcept {
  return true;
}
template <class T, class U>
bool operator!=(const huge_page_allocator<T>&, const huge_page_allocator<U>&) noexcept {
  return false;
}

template <class T>
using huge_page_vector = std::vector<T, huge_page_allocator<T>>;

}  // namespace kitchen
