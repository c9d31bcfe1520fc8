// Which fixed-size blocks of a linear memory differ from a reference. Two uses:
// - the instance template's 4 KiB blocks that hold data (reference: none), the only ones a
//   zero-page memory needs written at spawn and reset (instance_image.cpp);
// - the 64-byte lines a call wrote in the cpu device's instance 0 (reference: the template), a
//   guess of what the spawn's other instances will touch: they run the same module, usually the
//   same function, so their stacks and buffers sit at the same offsets. The cpu device
//   prefetches those lines of the instances a pass runs next (cpu_instances.cpp), since each
//   instance's memory is otherwise cold when its turn comes (docs/PERFORMANCE.md, "Cold
//   instances").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace wavestack::wasm {

// The indices of the first `max_blocks` blocks of `block_words` words of `memory` that differ
// from `reference` (words beyond it count as zero), in address order. Only the first
// `max_words` words are compared, which bounds the scan's cost for large memories.
[[nodiscard]] std::vector<std::size_t> differing_blocks(std::span<const std::uint32_t> memory,
                                                        std::span<const std::uint32_t> reference,
                                                        std::size_t block_words, std::size_t max_blocks,
                                                        std::size_t max_words);

}  // namespace wavestack::wasm
