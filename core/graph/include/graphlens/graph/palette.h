#pragma once
// The colours GraphLens draws with, in one place for the GUI, the HTML report and the DOT
// export: Okabe & Ito's (2008) colour-blind-safe palette, one colour per op family and per
// hazard kind, the barrier marks and races.
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
/// A race (a hazard no barrier orders, race_finder.h): the one Okabe & Ito colour that no
/// hazard kind and no barrier mark uses, so a race never reads as a hazard or a redundant
/// barrier. Op families use it too (norms); views draw races as lines, never as boxes.
Rgb race_colour();

}  // namespace graphlens
