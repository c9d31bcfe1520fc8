#include "wasm/instances/memory_blocks.hpp"

#include <algorithm>

namespace wavestack::wasm {

std::vector<std::size_t> differing_blocks(std::span<const std::uint32_t> memory,
                                          std::span<const std::uint32_t> reference, std::size_t block_words,
                                          std::size_t max_blocks, std::size_t max_words) {
  const std::size_t words = std::min(memory.size(), max_words);
  std::vector<std::size_t> blocks;
  for (std::size_t first = 0; first < words && blocks.size() < max_blocks; first += block_words) {
    const std::size_t end = std::min(first + block_words, words);
    for (std::size_t w = first; w < end; ++w) {
      if (memory[w] != (w < reference.size() ? reference[w] : 0u)) {
        blocks.push_back(first / block_words);
        break;
      }
    }
  }
  return blocks;
}

}  // namespace wavestack::wasm
