#include "wasm/instances/vulkan_page_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/error.hpp"
#include "wasm/module/resource_limit.hpp"

namespace wavestack::wasm {

PagePoolLayout page_pool_layout(const InstanceImage& image) {
  PagePoolLayout layout;
  layout.table_entries = image.memory_words / kFrameWords;
  layout.state_suffix.assign(1 + std::size_t{layout.table_entries}, kZeroFrame | kPageShared);
  layout.state_suffix[0] = 0;  // the fault word
  layout.fixed_frames.assign(std::size_t{kFirstTemplateFrame} * kFrameWords, 0);
  for (const WordRun& run : image.memory_nonzero_runs) {
    for (std::size_t word = run.first; word < run.first + run.count; word += kFrameWords) {
      const auto frame = static_cast<std::uint32_t>(layout.fixed_frames.size() / kFrameWords);
      layout.state_suffix[1 + word / kFrameWords] = frame | kPageShared;
      const std::size_t end = std::min(word + kFrameWords, image.memory.size());
      layout.fixed_frames.insert(layout.fixed_frames.end(), image.memory.begin() + static_cast<std::ptrdiff_t>(word),
                                 image.memory.begin() + static_cast<std::ptrdiff_t>(end));
      layout.fixed_frames.resize(std::size_t{frame + 1} * kFrameWords, 0);
    }
  }
  return layout;
}

bool paged_memory_forced(const char* setting) {
  const std::string_view text = setting == nullptr ? "" : setting;
  if (text.empty() || text == "auto") return false;
  if (text == "paged") return true;
  throw runtime::InvalidArgument("WAVESTACK_WASM_VULKAN_MEMORY",
                                 "must be 'auto' or 'paged', got '" + std::string(text) + "'");
}

bool paged_memory_forced() {
  return paged_memory_forced(std::getenv("WAVESTACK_WASM_VULKAN_MEMORY"));
}

std::vector<std::uint32_t> pool_fixed_frames(const PagePoolLayout& layout, std::uint32_t frames) {
  std::vector<std::uint32_t> words = layout.fixed_frames;
  words[kPoolNextFrameWord] = layout.first_free_frame();
  words[kPoolFramesWord] = frames;
  return words;
}

namespace {

std::span<std::byte> bytes_of(std::span<std::uint32_t> words) {
  return std::as_writable_bytes(words);
}

}  // namespace

void PagedMemory::read(std::uint64_t address, std::span<std::uint8_t> out) {
  const std::uint64_t first_page = address / kFrameBytes;
  const std::uint64_t end_page = (address + out.size() + kFrameBytes - 1) / kFrameBytes;
  std::vector<std::uint32_t> entries(end_page - first_page);
  context.download(state, bytes_of(entries), 4 * (table_word + first_page));
  std::size_t done = 0;
  for (std::uint64_t page = first_page; page < end_page; ++page) {
    const std::uint64_t at = address + done;
    const std::size_t chunk = std::min<std::size_t>(out.size() - done, kFrameBytes - at % kFrameBytes);
    const std::uint64_t frame = entries[page - first_page] & ~kPageShared;
    context.download(pool, std::as_writable_bytes(out.subspan(done, chunk)), frame * kFrameBytes + at % kFrameBytes);
    done += chunk;
  }
}

void PagedMemory::write(std::uint64_t address, std::span<const std::uint8_t> data) {
  const std::uint64_t first_page = address / kFrameBytes;
  const std::uint64_t end_page = (address + data.size() + kFrameBytes - 1) / kFrameBytes;
  std::vector<std::uint32_t> entries(end_page - first_page);
  context.download(state, bytes_of(entries), 4 * (table_word + first_page));
  std::uint32_t header[2] = {0, 0};
  context.download(pool, bytes_of(header), 0);
  const auto shared = static_cast<std::uint32_t>(
      std::count_if(entries.begin(), entries.end(), [](std::uint32_t e) { return (e & kPageShared) != 0; }));
  if (header[kPoolNextFrameWord] + std::uint64_t{shared} > header[kPoolFramesWord]) {
    throw ResourceLimit("device memory exhausted: the instances' page pool (" +
                        std::to_string(header[kPoolFramesWord]) +
                        " frames of 4 KiB) cannot give the written pages frames of their own; raise "
                        "max_resident_bytes or lower count");
  }
  std::vector<std::uint32_t> frame_words(kFrameWords);
  for (std::uint32_t& entry : entries) {
    if ((entry & kPageShared) == 0) continue;
    // A frame of its own, holding what the shared one holds (the write may cover only part).
    const std::uint32_t frame = header[kPoolNextFrameWord]++;
    context.download(pool, bytes_of(frame_words), std::uint64_t{entry & ~kPageShared} * kFrameBytes);
    context.upload(pool, std::as_bytes(std::span(frame_words)), std::uint64_t{frame} * kFrameBytes);
    entry = frame;
  }
  std::size_t done = 0;
  for (std::uint64_t page = first_page; page < end_page; ++page) {
    const std::uint64_t at = address + done;
    const std::size_t chunk = std::min<std::size_t>(data.size() - done, kFrameBytes - at % kFrameBytes);
    context.upload(pool, std::as_bytes(data.subspan(done, chunk)),
                   std::uint64_t{entries[page - first_page]} * kFrameBytes + at % kFrameBytes);
    done += chunk;
  }
  context.upload(state, std::as_bytes(std::span(entries)), 4 * (table_word + first_page));
  context.upload(pool, std::as_bytes(std::span(header, 1)), 0);
}

}  // namespace wavestack::wasm
