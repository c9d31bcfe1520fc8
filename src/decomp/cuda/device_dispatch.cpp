// The CUDA build's side of device_dispatch.hpp: device buffers get the device mover, device
// workspaces come from cudaMalloc, NCCL transposes and halo updates run on lazily created NCCL
// communicators.
#include "decomp/device_dispatch.hpp"

#include <string>

#include "decomp/cuda/device_memory.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/cuda/nccl_comm.hpp"
#include "decomp/cuda/nccl_halo.hpp"
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

void* allocate_caller_device_memory(size_t bytes) {
  return cuda::device_present() ? cuda::device_allocate(bytes) : nullptr;
}

bool release_caller_device_memory(void* buffer) {
  if (!cuda::is_device_pointer(buffer)) return false;
  cuda::device_release(buffer);
  return true;
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

namespace {

// The stream of a device operation; NCCL on host buffers is refused before any communication.
const cuda::DeviceMover& device_mover(const BlockMover* mover, const char* argument) {
  const auto* device = dynamic_cast<const cuda::DeviceMover*>(mover);
  if (device == nullptr)
    not_supported(std::string(argument) + ": NCCL backends need device buffers; the data is host memory");
  return *device;
}

const cuda::NcclComm& nccl_comm(MPI_Comm group, std::shared_ptr<void>& comm_cache) {
  if (!comm_cache) comm_cache = std::make_shared<cuda::NcclComm>(group);
  return *static_cast<const cuda::NcclComm*>(comm_cache.get());
}

}  // namespace

void run_nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                        const TransposeArgs& args, size_t element_bytes, MPI_Comm group,
                        std::shared_ptr<void>& comm_cache, bool pipelined) {
  const auto& device = device_mover(args.mover, "config.transpose_comm_backend");
  cuda::nccl_transpose(plan, in, out, args, element_bytes, nccl_comm(group, comm_cache), pipelined, device.stream());
}

void run_nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
                   MPI_Comm group, std::shared_ptr<void>& comm_cache, size_t element_bytes) {
  const auto& device = device_mover(args.mover, "config.halo_comm_backend");
  cuda::nccl_halo(args, layout, faces, minus, plus, nccl_comm(group, comm_cache), element_bytes, device);
}

}  // namespace wavestack::decomp
