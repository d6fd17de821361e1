#version 450
// No readonly / writeonly anywhere: the access comes from what the code does.
layout(local_size_x = 32, local_size_y = 2) in;
layout(set = 0, binding = 0) buffer OnlyLoaded { uint loaded[]; };
layout(set = 0, binding = 1) buffer OnlyStored { uint stored[]; };
layout(set = 0, binding = 2) buffer LoadedAndStored { uint both[]; };
layout(set = 0, binding = 3) buffer OnlyMeasured { uint measured[]; };
layout(set = 0, binding = 4) buffer Atomics { uint counter; };
layout(set = 0, binding = 5) buffer StoredInAFunction { uint far[]; };
void store_far(uint i, uint v) { far[i] = v; }
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i >= uint(measured.length())) return;
    stored[i] = loaded[i];
    both[i] = both[i] * 2u;
    atomicAdd(counter, 1u);
    store_far(i, 7u);
}
