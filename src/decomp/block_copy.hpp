// Copies of 3-D strided blocks between buffers: the packing and unpacking of transposes and
// halo exchanges. Callers describe blocks by strides, never by where memory lives; this file is
// the host implementation (the CUDA build supplies the same operation as a kernel, see
// cuda/pack_kernels.cuh). Both take their index arithmetic from block_index.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "decomp/block_index.hpp"
#include "decomp/geometry.hpp"

namespace wavestack::decomp {

struct StridedBlock {
  Int3 count{0, 0, 0};       // elements per global axis
  Int3 src_stride{0, 0, 0};  // element strides of the source per global axis
  Int3 dst_stride{0, 0, 0};  // element strides of the destination per global axis
};

// Copies `block` from src (+src_offset elements) to dst (+dst_offset elements); element_bytes
// is 4, 8 or 16. Source and destination must not overlap.
void copy_block(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                const StridedBlock& block);

// The block in the loop order both copies use (block_index.hpp).
BlockIndex to_loop_order(const StridedBlock& block);

// Contiguous strides of a packed block, X fastest (the wire order of every message).
Int3 packed_strides(const Int3& count);

}  // namespace wavestack::decomp
