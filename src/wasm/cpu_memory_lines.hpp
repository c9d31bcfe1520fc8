// Which cache lines of an instance's linear memory a call wrote, as a guess of what the other
// instances of the spawn will touch: they run the same module, usually the same function, so
// their stacks, globals in memory and buffers sit at the same offsets. The cpu device
// prefetches those lines of the instances a pass will run next (cpu_instances.cpp), since
// each instance's memory is otherwise cold when its turn comes (docs/PERFORMANCE.md, "Cold
// instances").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace wavestack::wasm {

inline constexpr std::size_t kCacheLineBytes = 64;

// The byte offsets of the first `max_lines` 64-byte lines of `memory` that differ from
// `initial` (the instance template's memory; words beyond it are initially zero), in address
// order. Only the first `max_words` words are compared, which bounds the scan's cost for large
// memories.
[[nodiscard]] std::vector<std::uint32_t> written_lines(std::span<const std::uint32_t> memory,
                                                       std::span<const std::uint32_t> initial, std::size_t max_lines,
                                                       std::size_t max_words);

}  // namespace wavestack::wasm
