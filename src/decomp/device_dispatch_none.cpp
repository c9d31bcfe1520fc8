// The CPU-only build's side of device_dispatch.hpp: no buffer is device memory, and the NCCL
// backends never get this far (config validation refuses them as NOT_SUPPORTED).
#include "decomp/block_mover.hpp"
#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {

bool device_backend_built() {
  return false;
}

bool device_available() {
  return false;
}

std::string current_device_identity() {
  return "";
}

std::vector<double> time_each_on_stream(cudaStream_t /*stream*/,
                                        std::span<const std::function<void()>> /*operations*/) {
  not_supported("timing on a CUDA stream needs the CUDA build of cudecomp");
}

void wait_for_stream(cudaStream_t /*stream*/) {
  not_supported("CUDA streams need the CUDA build of cudecomp");
}

bool is_device_buffer(const void* /*buffer*/) {
  return false;
}

bool is_managed_buffer(const void* /*buffer*/) {
  return false;
}

std::unique_ptr<BlockMover> device_mover_for(const void* /*buffer*/, cudaStream_t /*stream*/) {
  return nullptr;
}

void* allocate_caller_device_memory(size_t /*bytes*/) {
  return nullptr;
}

void* allocate_caller_pinned_memory(size_t /*bytes*/) {
  return nullptr;
}

bool release_caller_cuda_memory(void* /*buffer*/) {
  return false;
}

std::shared_ptr<void> allocate_device(size_t /*bytes*/) {
  not_supported("device memory needs the CUDA build of cudecomp");
}

void prepare_nccl_halo_group(const NcclGroup& /*group*/, const BlockMover* /*mover*/) {
  not_supported("NCCL backends need the CUDA build of cudecomp");
}

void run_nccl_transpose(const TransposePlan& /*plan*/, const PencilLayout& /*in*/, const PencilLayout& /*out*/,
                        const TransposeArgs& /*args*/, size_t /*element_bytes*/, const NcclGroup& /*group*/,
                        bool /*pipelined*/) {
  not_supported("NCCL backends need the CUDA build of cudecomp");
}

void run_nccl_halo(const HaloArgs& /*args*/, const PencilLayout& /*layout*/, const HaloFaces& /*faces*/, int /*minus*/,
                   int /*plus*/, const NcclGroup& /*group*/, size_t /*element_bytes*/) {
  not_supported("NCCL backends need the CUDA build of cudecomp");
}

}  // namespace wavestack::decomp
