#pragma once
// prefetch(p), prefetch_l2(p): a cache hint for the line at p, for walks over many nodes whose
// shared fields are cold. An asm statement on x86: GCC 12's dead-code elimination drops
// __builtin_prefetch in some of the walks (planned_order, graph_of_order compiled without a single
// prefetch).

namespace graphlens {

inline void prefetch(const void* p) noexcept {
    if (!p) return;
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p);
#endif
}

/// prefetch(p) into the second-level cache only (prefetcht1): for lines needed a step later
/// than those asked for with prefetch(), so that they do not take first-level fill buffers
/// from the lines needed next (the hazard index's store objects, two nodes ahead).
inline void prefetch_l2(const void* p) noexcept {
    if (!p) return;
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetcht1 %0" : : "m"(*static_cast<const char*>(p)));
#else
    __builtin_prefetch(p, 0, 2);
#endif
}

}  // namespace graphlens
