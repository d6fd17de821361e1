#include "capture/src/capture_json.h"

#include "graphlens/graph/dtype.h"
#include "graphlens/graph/kernel_info.h"

namespace graphlens::capture_detail {

std::string to_hex(const uint8_t* bytes, size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s(2 * n, '0');
    for (size_t i = 0; i < n; ++i) {
        s[2 * i] = kDigits[bytes[i] >> 4];
        s[2 * i + 1] = kDigits[bytes[i] & 0xF];
    }
    return s;
}

std::string u64_to_hex16(uint64_t v) {
    uint8_t be[8];
    for (int i = 0; i < 8; ++i) be[i] = static_cast<uint8_t>(v >> (56 - 8 * i));
    return to_hex(be, 8);
}

int64_t default_elements(DType dtype, uint64_t size) {
    return static_cast<int64_t>(size / dtype_block_bytes(dtype) * dtype_block_elements(dtype));
}

void derived_ranges(const KernelInfo& kernel, const std::vector<BoundView>& bindings,
                    std::vector<ByteRange>& reads, std::vector<ByteRange>& writes) {
    reads.clear();
    writes.clear();
    for (const auto& b : bindings) {
        const KernelBinding* kb = kernel.find_binding(b.set, b.binding);
        const BindingAccess access = kb ? kb->access : BindingAccess::read_write;
        if (access_reads(access)) reads.push_back(b.view.range());
        if (access_writes(access)) writes.push_back(b.view.range());
    }
}

}  // namespace graphlens::capture_detail
