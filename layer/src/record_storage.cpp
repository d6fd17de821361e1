#include "layer/src/record_storage.h"

#include <sys/mman.h>

#include <new>

namespace graphlens::layer {

void ChunkMemory::Unmap::operator()(void* p) const {
    munmap(p, bytes);
}

ChunkMemory::Pointer ChunkMemory::allocate(size_t bytes) {
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return Pointer(p, Unmap{bytes});
}

}  // namespace graphlens::layer
