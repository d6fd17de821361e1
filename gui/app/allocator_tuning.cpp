#include "app/allocator_tuning.h"

#include <malloc.h>

namespace graphlens::gui {

void keep_freed_memory_for_reuse() {
    // Blocks up to glibc's largest threshold come from the heap, where a freed block is reused,
    // rather than from mmap, where it is unmapped at once; and the heap is never trimmed.
    constexpr int largest_mmap_threshold = 32 << 20;
    mallopt(M_MMAP_THRESHOLD, largest_mmap_threshold);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

}  // namespace graphlens::gui
