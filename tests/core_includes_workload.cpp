// Compiled only by the test CoreIncludingTheWorkloadFailsToCompile, linked to the core's
// highest layers (exec, record) alone: the LLM workload's headers are not on their include
// path, so this include must fail. The core never depends on a workload.
#include "graphlens/ops/ops.h"

int main() {
    return 0;
}
