// Compiled only by the test LayerIncludeClimbFailsToCompile, linked to the graph layer alone:
// the vulkan layer's headers are not on its include path, so this include must fail.
#include "graphlens/vulkan/device.h"

int main() {
    return 0;
}
