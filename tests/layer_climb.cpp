// Compiled only by the test LayerIncludeClimbFailsToCompile, linked to the graph layer alone:
// the gpu layer's headers are not on its include path, so this include must fail.
#include "graphlens/gpu/device.h"

int main() {
    return 0;
}
