#include "wasm/cpu_memory_lines.hpp"

#include <algorithm>

namespace wavestack::wasm {

std::vector<std::uint32_t> written_lines(std::span<const std::uint32_t> memory, std::span<const std::uint32_t> initial,
                                         std::size_t max_lines, std::size_t max_words) {
  constexpr std::size_t kLineWords = kCacheLineBytes / sizeof(std::uint32_t);
  const std::size_t words = std::min(memory.size(), max_words);
  std::vector<std::uint32_t> lines;
  for (std::size_t first = 0; first < words && lines.size() < max_lines; first += kLineWords) {
    const std::size_t end = std::min(first + kLineWords, words);
    for (std::size_t w = first; w < end; ++w) {
      const std::uint32_t was = w < initial.size() ? initial[w] : 0u;
      if (memory[w] != was) {
        lines.push_back(static_cast<std::uint32_t>(first * sizeof(std::uint32_t)));
        break;
      }
    }
  }
  return lines;
}

}  // namespace wavestack::wasm
