#include "graphlens/graph/palette.h"

#include <fmt/format.h>

namespace graphlens {

std::string Rgb::hex() const {
    return fmt::format("#{:02X}{:02X}{:02X}", r, g, b);
}

Rgb op_family_colour(OpFamily family) {
    switch (family) {
        case OpFamily::matmul:
            return {0x00, 0x72, 0xB2};  // blue
        case OpFamily::attention:
            return {0xD5, 0x5E, 0x00};  // vermillion
        case OpFamily::norm:
            return {0x00, 0x9E, 0x73};  // bluish green
        case OpFamily::elementwise:
            return {0xE6, 0x9F, 0x00};  // orange
        case OpFamily::activation:
            return {0xCC, 0x79, 0xA7};  // reddish purple
        case OpFamily::rope:
            return {0x56, 0xB4, 0xE9};  // sky blue
        case OpFamily::copy:
            return {0xF0, 0xE4, 0x42};  // yellow
        case OpFamily::other:
            break;
    }
    return {0x99, 0x99, 0x99};
}

Rgb hazard_colour(HazardKind kind) {
    switch (kind) {
        case HazardKind::raw:
            return {0x00, 0x72, 0xB2};
        case HazardKind::war:
            return {0xE6, 0x9F, 0x00};
        case HazardKind::waw:
            return {0xCC, 0x79, 0xA7};
    }
    return {0x99, 0x99, 0x99};
}

Rgb barrier_colour() {
    return {0x20, 0x20, 0x20};
}

Rgb redundant_barrier_colour() {
    return {0xD5, 0x5E, 0x00};
}

Rgb race_colour() {
    return {0x00, 0x9E, 0x73};  // bluish green
}

}  // namespace graphlens
