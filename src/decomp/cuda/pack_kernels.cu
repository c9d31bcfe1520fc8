#include "decomp/cuda/pack_kernels.cuh"
#include "decomp/launch_geometry.hpp"

namespace wavestack::decomp::cuda {
namespace {

// One opaque element of N bytes; alignment lets the compiler emit one vector load/store.
template <size_t N>
struct alignas(N) Element {
  unsigned char bytes[N];
};

// Grid-stride loop over the block in loop order; consecutive threads write consecutive
// destination elements whenever the destination is contiguous along loop axis 0. No
// __restrict__: a periodic halo copies between disjoint regions of one buffer.
template <size_t N>
__global__ void copy_block_kernel(const Element<N>* src, Element<N>* dst, BlockIndex block) {
  const int64_t total = block_volume(block);
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t linear = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; linear < total; linear += step) {
    const ElementOffsets at = linear_offsets(block, linear);
    dst[at.dst] = src[at.src];
  }
}

template <size_t N>
void launch(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, const BlockIndex& block,
            LaunchGeometry geometry, cudaStream_t stream) {
  copy_block_kernel<N><<<geometry.grid, geometry.threads, 0, stream>>>(
      static_cast<const Element<N>*>(src) + src_offset, static_cast<Element<N>*>(dst) + dst_offset, block);
}

}  // namespace

cudaError_t copy_block_async(const void* src, int64_t src_offset, void* dst, int64_t dst_offset, size_t element_bytes,
                             const BlockIndex& block, cudaStream_t stream) {
  const LaunchGeometry geometry = copy_launch_geometry(block);
  if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16) return cudaErrorInvalidValue;
  if (geometry.grid == 0) return cudaSuccess;
  switch (element_bytes) {
    case 4:
      launch<4>(src, src_offset, dst, dst_offset, block, geometry, stream);
      break;
    case 8:
      launch<8>(src, src_offset, dst, dst_offset, block, geometry, stream);
      break;
    default:
      launch<16>(src, src_offset, dst, dst_offset, block, geometry, stream);
      break;
  }
  return cudaGetLastError();
}

}  // namespace wavestack::decomp::cuda
