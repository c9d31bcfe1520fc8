#include "decomp/cuda/pack_kernels.cuh"

namespace wavestack::decomp::cuda {
namespace {

// One opaque element of N bytes; alignment lets the compiler emit one vector load/store.
template <size_t N>
struct alignas(N) Element {
  unsigned char bytes[N];
};

// Grid-stride loop over the block's elements in contiguous order; `kPack` selects the
// direction so both kernels share the index arithmetic.
template <size_t N, bool kPack>
__global__ void copy_block(const Element<N>* __restrict__ src, Element<N>* __restrict__ dst, Block3d block) {
  const int64_t nx = block.extent[0];
  const int64_t ny = block.extent[1];
  const int64_t total = nx * ny * block.extent[2];
  for (int64_t linear = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; linear < total;
       linear += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = linear % nx;
    const int64_t y = (linear / nx) % ny;
    const int64_t z = linear / (nx * ny);
    const int64_t strided = x * block.stride[0] + y * block.stride[1] + z * block.stride[2];
    if constexpr (kPack) {
      dst[linear] = src[strided];
    } else {
      dst[strided] = src[linear];
    }
  }
}

template <bool kPack>
cudaError_t launch(const void* src, void* dst, size_t element_bytes, const Block3d& block, cudaStream_t stream) {
  const int64_t total = block.extent[0] * block.extent[1] * block.extent[2];
  if (total <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  // Enough blocks to fill the GPU without one thread per element on huge blocks.
  const int64_t wanted = (total + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65535 * 8 ? wanted : 65535 * 8);
  switch (element_bytes) {
    case 4:
      copy_block<4, kPack>
          <<<blocks, kThreads, 0, stream>>>(static_cast<const Element<4>*>(src), static_cast<Element<4>*>(dst), block);
      break;
    case 8:
      copy_block<8, kPack>
          <<<blocks, kThreads, 0, stream>>>(static_cast<const Element<8>*>(src), static_cast<Element<8>*>(dst), block);
      break;
    case 16:
      copy_block<16, kPack><<<blocks, kThreads, 0, stream>>>(static_cast<const Element<16>*>(src),
                                                             static_cast<Element<16>*>(dst), block);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t pack_block(const void* src, void* dst, size_t element_bytes, const Block3d& block, cudaStream_t stream) {
  return launch<true>(src, dst, element_bytes, block, stream);
}

cudaError_t unpack_block(const void* src, void* dst, size_t element_bytes, const Block3d& block, cudaStream_t stream) {
  return launch<false>(src, dst, element_bytes, block, stream);
}

}  // namespace wavestack::decomp::cuda
