// Launch geometry of the CUDA block-copy kernel, computed on the host from the block alone so
// it is unit-tested without a GPU (tests/cpp/test_decomp_gpu_logic.cpp). The kernel runs a flat
// grid-stride loop over the block in loop order (block_index.hpp); this header decides how many
// threads and thread blocks that loop gets.
#pragma once

#include <cstdint>

#include "decomp/block_index.hpp"

namespace wavestack::decomp {

struct LaunchGeometry {
  uint32_t grid = 0;     // thread blocks (gridDim.x); 0 means nothing to launch
  uint32_t threads = 0;  // threads per block (blockDim.x), a multiple of the warp size
};

inline constexpr int64_t kWarpSize = 32;
inline constexpr int64_t kCopyThreads = 256;
// Enough blocks to fill any current GPU many times over; larger blocks loop (grid stride)
// instead of launching one thread per element.
inline constexpr int64_t kMaxCopyBlocks = int64_t{1} << 16;

// One thread per element up to kMaxCopyBlocks * kCopyThreads elements; small blocks get fewer
// threads (whole warps) so a tiny halo face does not launch 256 idle threads.
constexpr LaunchGeometry copy_launch_geometry(int64_t elements) {
  if (elements <= 0) return {};
  const int64_t warps = (elements + kWarpSize - 1) / kWarpSize;
  const int64_t threads = warps * kWarpSize < kCopyThreads ? warps * kWarpSize : kCopyThreads;
  const int64_t wanted = (elements + threads - 1) / threads;
  const int64_t grid = wanted < kMaxCopyBlocks ? wanted : kMaxCopyBlocks;
  return {static_cast<uint32_t>(grid), static_cast<uint32_t>(threads)};
}

inline LaunchGeometry copy_launch_geometry(const BlockIndex& block) {
  const bool empty = block.count[0] <= 0 || block.count[1] <= 0 || block.count[2] <= 0;
  return copy_launch_geometry(empty ? 0 : block_volume(block));
}

}  // namespace wavestack::decomp
