// CUDA packing of strided 3-D blocks for cudecomp's transposes and halo exchanges.
// Element types are handled by size (4, 8 or 16 bytes): packing moves bits, never values.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace wavestack::decomp::cuda {

struct Block3d {
  int64_t extent[3];  // elements along each axis, fastest first
  int64_t stride[3];  // element strides of the strided side, fastest first
};

// Copies the strided block `block` of `src` into contiguous `dst` (pack), or contiguous `src`
// into the strided block of `dst` (unpack). Returns cudaErrorInvalidValue for an element size
// other than 4, 8 or 16, else the launch's error.
cudaError_t pack_block(const void* src, void* dst, size_t element_bytes, const Block3d& block, cudaStream_t stream);
cudaError_t unpack_block(const void* src, void* dst, size_t element_bytes, const Block3d& block, cudaStream_t stream);

}  // namespace wavestack::decomp::cuda
