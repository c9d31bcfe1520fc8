// The CUDA build's side of device_dispatch.hpp: device buffers get the device mover, device
// workspaces come from cudaMalloc, NCCL transposes run on a lazily created NCCL communicator.
#include "decomp/device_dispatch.hpp"

#include "decomp/cuda/device_memory.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/cuda/nccl_comm.hpp"
#include "decomp/cuda/nccl_transpose.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"

namespace wavestack::decomp {

bool device_backend_built() {
  return true;
}

bool is_device_buffer(const void* buffer) {
  return cuda::is_device_pointer(buffer);
}

std::unique_ptr<BlockMover> device_mover_for(const void* buffer, cudaStream_t stream) {
  if (!cuda::is_device_pointer(buffer)) return nullptr;
  return std::make_unique<cuda::DeviceMover>(stream);
}

std::shared_ptr<void> allocate_device(size_t bytes) {
  // Released from destructors, where a failure cannot be reported: ignore cudaFree's status.
  return {cuda::device_allocate(bytes), [](void* pointer) {
            try {
              cuda::device_release(pointer);
            } catch (const DecompError&) {
            }
          }};
}

void run_nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                        const TransposeArgs& args, size_t element_bytes, MPI_Comm group,
                        std::shared_ptr<void>& comm_cache, bool pipelined) {
  const auto* device = dynamic_cast<const cuda::DeviceMover*>(args.mover);
  if (device == nullptr) {
    not_supported("config.transpose_comm_backend: NCCL backends need device buffers; input is host memory");
  }
  if (!comm_cache) comm_cache = std::make_shared<cuda::NcclComm>(group);
  cuda::nccl_transpose(plan, in, out, args, element_bytes, *static_cast<const cuda::NcclComm*>(comm_cache.get()),
                       pipelined, device->stream());
}

}  // namespace wavestack::decomp
