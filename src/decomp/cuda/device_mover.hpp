// The BlockMover of device buffers: every block copy is a kernel (pack_kernels.cuh) enqueued on
// the operation's stream, and MPI may touch a packed buffer only after the stream is
// synchronized (CUDA-aware MPI takes device pointers but does not order itself after kernels).
#pragma once

#include <cuda_runtime.h>

#include "decomp/block_mover.hpp"

namespace wavestack::decomp::cuda {

class DeviceMover final : public BlockMover {
 public:
  explicit DeviceMover(cudaStream_t stream) : stream_(stream) {}
  void copy(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
            const StridedBlock& block) const override;
  void before_communication() const override;
  bool host_memory() const override { return false; }
  cudaStream_t stream() const { return stream_; }

 private:
  cudaStream_t stream_;
};

}  // namespace wavestack::decomp::cuda
