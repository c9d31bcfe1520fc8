#include "decomp/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include "decomp/cuda/cuda_check.hpp"

namespace wavestack::decomp::cuda {

namespace {

// The CUDA memory type of `pointer`; unregistered host memory (or a failed query) when CUDA
// does not know it.
cudaMemoryType memory_type(const void* pointer) {
  if (pointer == nullptr) return cudaMemoryTypeUnregistered;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();  // the failed query leaves a (non-sticky) error: clear it
    return cudaMemoryTypeUnregistered;
  }
  return attributes.type;
}

}  // namespace

bool is_device_pointer(const void* pointer) {
  const cudaMemoryType type = memory_type(pointer);
  return type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged;
}

bool is_managed_pointer(const void* pointer) {
  return memory_type(pointer) == cudaMemoryTypeManaged;
}

bool device_present() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return count > 0;
}

std::string current_device_pci_bus_id() {
  int device = 0;
  char bus_id[32] = {};  // "dddd:bb:dd.f" and a terminating zero, with room to spare
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetPCIBusId(bus_id, static_cast<int>(sizeof(bus_id)), device) != cudaSuccess) {
    (void)cudaGetLastError();
    return "";
  }
  return bus_id;
}

void* device_allocate(size_t bytes) {
  void* pointer = nullptr;
  check_cuda(cudaMalloc(&pointer, bytes), "cudaMalloc");
  return pointer;
}

void* pinned_host_allocate(size_t bytes) {
  void* pointer = nullptr;
  check_cuda(cudaMallocHost(&pointer, bytes), "cudaMallocHost");
  return pointer;
}

void device_release(void* pointer) {
  check_cuda(cudaFree(pointer), "cudaFree");
}

void pinned_host_release(void* pointer) {
  check_cuda(cudaFreeHost(pointer), "cudaFreeHost");
}

}  // namespace wavestack::decomp::cuda
