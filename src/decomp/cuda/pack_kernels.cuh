// CUDA copies of strided 3-D blocks for cudecomp's transposes and halo exchanges: the device
// side of block_copy.hpp. Element types are handled by size (4, 8 or 16 bytes): packing moves
// bits, never values. The index arithmetic is block_index.hpp's, the launch geometry
// launch_geometry.hpp's, so both are tested on the CPU.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "decomp/block_index.hpp"

namespace wavestack::decomp::cuda {

// Enqueues on `stream` the copy of `block` (loop order) from src (+src_offset elements) to dst
// (+dst_offset elements). Source and destination may be the same buffer when the two regions
// are disjoint (a periodic halo copying its own face). Returns cudaErrorInvalidValue for an
// element size other than 4, 8 or 16, cudaSuccess for an empty block, else the launch's error.
cudaError_t copy_block_async(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                             const BlockIndex& block, cudaStream_t stream);

}  // namespace wavestack::decomp::cuda
