#pragma once
// The colours GraphLens draws with, in one place for the GUI, the HTML report and the DOT
// export: Okabe & Ito's (2008) colour-blind-safe palette, one colour per op family and per
// hazard kind.
#include <cstdint>
#include <string>

#include "graphlens/graph/hazard.h"
#include "graphlens/graph/op_family.h"

namespace graphlens {

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
    /// "#RRGGBB".
    std::string hex() const;
    friend bool operator==(const Rgb&, const Rgb&) = default;
};

Rgb op_family_colour(OpFamily family);
Rgb hazard_colour(HazardKind kind);
/// A needed barrier, and one a view marks as redundant.
Rgb barrier_colour();
Rgb redundant_barrier_colour();

}  // namespace graphlens
