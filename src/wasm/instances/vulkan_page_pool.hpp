// Paged linear memory on a Vulkan device (decision 0014): when a spawn cannot hold every
// instance's reserved pages (count x memory_pages x 64 KiB beyond max_resident_bytes or the
// device), each group's memory buffer is a pool of 4 KiB frames and each instance's state ends
// in a fault word and a page table (interpreter_vulkan_bindings.glsl reads and fills both).
// This file holds the layout the host sets up, the pool's size, and the host's own reads and
// writes of a paged memory (read_memory / write_memory).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/compute_context.hpp"
#include "wasm/instances/instance_image.hpp"

namespace wavestack::wasm {

inline constexpr std::uint32_t kFrameWords = 1024;  // a frame: 4 KiB
inline constexpr std::uint32_t kFrameBytes = 4 * kFrameWords;
inline constexpr std::uint32_t kPageShared = 0x80000000u;  // table entry: shared frame, copied on write
inline constexpr std::uint32_t kPoolNextFrameWord = 0;     // frame 0: the allocation words
inline constexpr std::uint32_t kPoolFramesWord = 1;
inline constexpr std::uint32_t kZeroFrame = 2;  // frame 1 takes the writes made when the pool is full
inline constexpr std::uint32_t kFirstTemplateFrame = 3;
// Frames of a group's pool per instance when the budget leaves less: one wasm page.
inline constexpr std::uint32_t kPoolFloorFrames = 16;

struct PagePoolLayout {
  std::uint32_t table_entries = 0;  // 4 KiB pages an instance reserves (memory_pages x 16)
  // What follows an instance's state: the fault word, then the page table (its initial entries
  // map every page to the zero frame or the template frame of its initial data).
  std::vector<std::uint32_t> state_suffix;
  // The pool's first frames: allocation words, sink, zeros, the template's data frames.
  std::vector<std::uint32_t> fixed_frames;
  [[nodiscard]] std::uint32_t first_free_frame() const noexcept {
    return static_cast<std::uint32_t>(fixed_frames.size() / kFrameWords);
  }
};

[[nodiscard]] PagePoolLayout page_pool_layout(const InstanceImage& image);

// Whether WAVESTACK_WASM_VULKAN_MEMORY asks for paged memory whatever fits ("paged"; "auto" or
// unset: only where dense memory does not fit). Throws runtime::InvalidArgument for other text.
[[nodiscard]] bool paged_memory_forced(const char* setting);
[[nodiscard]] bool paged_memory_forced();

// The fixed frames of a pool of `frames` frames, ready to upload at its start.
[[nodiscard]] std::vector<std::uint32_t> pool_fixed_frames(const PagePoolLayout& layout, std::uint32_t frames);

// An instance's paged memory as the host sees it: its page table in the group's state buffer
// (from `table_word`, the fault word's successor) and the group's pool.
struct PagedMemory {
  runtime::ComputeContext& context;
  runtime::DeviceBuffer& state;
  runtime::DeviceBuffer& pool;
  std::uint64_t table_word = 0;

  void read(std::uint64_t address, std::span<std::uint8_t> out);
  // Gives the written pages frames of their own first; throws ResourceLimit, having changed
  // nothing, when the pool cannot hold them.
  void write(std::uint64_t address, std::span<const std::uint8_t> data);
};

}  // namespace wavestack::wasm
