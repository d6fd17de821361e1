#pragma once

namespace graphlens::gui {

/// Makes the C allocator keep the memory a document frees for the next one instead of handing
/// it back to the system: a large capture's load and analyses allocate and free hundreds of
/// megabytes, and on virtual machines that pay a trap for every page touched for the first
/// time, memory handed back and mapped again costs more than the work done in it. Called once
/// per process, before the first document is opened.
void keep_freed_memory_for_reuse();

}  // namespace graphlens::gui
