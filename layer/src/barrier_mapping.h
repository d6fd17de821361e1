#pragma once
// Vulkan's pipeline stages and access flags mapped onto GraphLens's own small sets
// (graphlens/graph/barrier_scope.h), for the barriers, event waits and semaphore waits a
// recorded program issues.
//
// Stages (a mask may name several; the result is their union):
//   COMPUTE_SHADER                                  → compute
//   DRAW_INDIRECT (dispatch-indirect arguments are read in it), and ALL_GRAPHICS, which
//   includes it                                     → compute
//   TRANSFER / ALL_TRANSFER, COPY, CLEAR, RESOLVE, BLIT → transfer
//   HOST                                            → host
//   ALL_COMMANDS                                    → compute | transfer (commands on a queue;
//                                                     host access is not a queue command)
//   TOP_OF_PIPE      first scope: nothing; second scope: compute | transfer (ALL_COMMANDS
//                    with no access, as the spec defines it)
//   BOTTOM_OF_PIPE   first scope: compute | transfer (ALL_COMMANDS with no access);
//                    second scope: nothing
//   NONE and the graphics-only stages               → nothing
// Accesses:
//   SHADER_READ, SHADER_STORAGE_READ, SHADER_SAMPLED_READ, UNIFORM_READ,
//   INDIRECT_COMMAND_READ (the indirect arguments of a dispatch)      → shader_read
//   SHADER_WRITE, SHADER_STORAGE_WRITE                                 → shader_write
//   TRANSFER_READ / TRANSFER_WRITE                                     → transfer_read / _write
//   HOST_READ / HOST_WRITE                                             → host_read / _write
//   MEMORY_READ / MEMORY_WRITE                                         → every read / write
// and an access mask only counts for the stages of its own scope (the spec's access scope is
// the accesses the scope's stages perform): shader bits need compute, transfer bits transfer,
// host bits host.
#include <vulkan/vulkan.h>

#include <cstdint>

namespace graphlens::layer {

enum class ScopeSide : uint8_t { first, second };

uint8_t map_stages(VkPipelineStageFlags2 stages, ScopeSide side);
/// The accesses of `access` that the already mapped `stages` perform.
uint8_t map_access(VkAccessFlags2 access, uint8_t stages);

}  // namespace graphlens::layer
