// The CUDA build's side of device_dispatch.hpp: device buffers get the device mover, device
// workspaces come from cudaMalloc, NCCL transposes and halo updates run on lazily created NCCL
// communicators.
#include "decomp/device_dispatch.hpp"

#include <string>

#include "decomp/cuda/cuda_check.hpp"
#include "decomp/cuda/device_memory.hpp"
#include "decomp/cuda/device_mover.hpp"
#include "decomp/cuda/event_timer.hpp"
#include "decomp/cuda/nccl_comm.hpp"
#include "decomp/cuda/nccl_halo.hpp"
#include "decomp/cuda/nccl_transpose.hpp"
#include "decomp/cuda/pinned_allocations.hpp"
#include "decomp/error.hpp"
#include "decomp/grid_desc.hpp"

namespace wavestack::decomp {

bool device_backend_built() {
  return true;
}

bool device_available() {
  return cuda::device_present();
}

std::string current_device_identity() {
  return cuda::current_device_pci_bus_id();
}

std::vector<double> time_each_on_stream(cudaStream_t stream, std::span<const std::function<void()>> operations) {
  cuda::EventSequence events(operations.size() + 1);
  for (size_t i = 0; i < operations.size(); ++i) {
    events.record(i, stream);
    operations[i]();
  }
  events.record(operations.size(), stream);
  std::vector<double> seconds(operations.size());
  for (size_t i = 0; i < operations.size(); ++i) seconds[i] = events.elapsed_ms(i, i + 1) * 1e-3;
  return seconds;
}

void wait_for_stream(cudaStream_t stream) {
  cuda::check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

bool is_device_buffer(const void* buffer) {
  return cuda::is_device_pointer(buffer);
}

bool is_managed_buffer(const void* buffer) {
  return cuda::is_managed_pointer(buffer);
}

std::unique_ptr<BlockMover> device_mover_for(const void* buffer, cudaStream_t stream) {
  if (!cuda::is_device_pointer(buffer)) return nullptr;
  return std::make_unique<cuda::DeviceMover>(stream);
}

void* allocate_caller_device_memory(size_t bytes) {
  return cuda::device_present() ? cuda::device_allocate(bytes) : nullptr;
}

void* allocate_caller_pinned_memory(size_t bytes) {
  return cuda::device_present() ? cuda::pinned_allocate(bytes) : nullptr;
}

bool release_caller_cuda_memory(void* buffer) {
  // The recorded pinned pointers first: that check makes no CUDA call, and pointer attributes
  // would not tell our pinned memory from memory the caller registered with CUDA.
  if (cuda::pinned_release(buffer)) return true;
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

// The group's NCCL communicator, split from the handle's on first use (both collective over
// all of the handle's ranks; every rank reaches here together, see the callers).
const cuda::NcclComm& nccl_comm(const NcclGroup& group) {
  std::shared_ptr<void>& cache = *group.cache;
  if (!cache) {
    if constexpr (cuda::kNcclHasCommSplit) {
      std::shared_ptr<void>& handle_cache = *group.handle_cache;
      if (!handle_cache) handle_cache = std::make_shared<cuda::NcclComm>(group.handle_comm);
      cache = std::make_shared<cuda::NcclComm>(std::static_pointer_cast<const cuda::NcclComm>(handle_cache),
                                               group.color, group.key);
    } else {
      cache = std::make_shared<cuda::NcclComm>(group.group);
    }
  }
  return *static_cast<const cuda::NcclComm*>(cache.get());
}

}  // namespace

void prepare_nccl_halo_group(const NcclGroup& group, const BlockMover* mover) {
  device_mover(mover, "config.halo_comm_backend");  // host buffers are refused before NCCL is touched
  nccl_comm(group);
}

void run_nccl_transpose(const TransposePlan& plan, const PencilLayout& in, const PencilLayout& out,
                        const TransposeArgs& args, size_t element_bytes, const NcclGroup& group, bool pipelined) {
  const auto& device = device_mover(args.mover, "config.transpose_comm_backend");
  cuda::nccl_transpose(plan, in, out, args, element_bytes, nccl_comm(group), pipelined, device.stream());
}

void run_nccl_halo(const HaloArgs& args, const PencilLayout& layout, const HaloFaces& faces, int minus, int plus,
                   const NcclGroup& group, size_t element_bytes) {
  const auto& device = device_mover(args.mover, "config.halo_comm_backend");
  cuda::nccl_halo(args, layout, faces, minus, plus, nccl_comm(group), element_bytes, device);
}

}  // namespace wavestack::decomp
