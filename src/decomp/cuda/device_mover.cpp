#include "decomp/cuda/device_mover.hpp"

#include "decomp/block_index.hpp"
#include "decomp/cuda/cuda_check.hpp"
#include "decomp/cuda/pack_kernels.cuh"

namespace wavestack::decomp::cuda {

void DeviceMover::copy(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                       const StridedBlock& block) const {
  // The same loop order as the host copy (block_copy.cpp's to_loop_order), computed from the
  // header so this library needs only the core's headers.
  const BlockIndex index = loop_order(block.count.data(), block.src_stride.data(), block.dst_stride.data());
  check_cuda(copy_block_async(src, src_offset, dst, dst_offset, element_bytes, index, stream_), "copy_block_async");
}

void DeviceMover::before_communication() const {
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

}  // namespace wavestack::decomp::cuda
