// Host stand-ins for exactly the CUDA runtime and NCCL calls that upstream cuDecomp's test
// programs make (cudart_host_standin.h renames their calls to these), so those programs run on a
// machine without a GPU: "device" memory is 64-byte aligned host memory, copies and fills are
// memcpy and memset, and every rank on a node gets a device of its own (the host), so the tests
// never take their GPU-sharing paths. There is no NCCL here: ncclGetVersion fails, which the
// tests read as version 0. A test helper, not part of the product.
#include "cudart_host_standin.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

// One device per rank of this node, as the MPI launcher counts them (Open MPI, then MPICH).
int local_rank_count() {
  for (const char* variable : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && std::atoi(value) > 0) return std::atoi(value);
  }
  return 1;
}

bool is_copy_kind(cudaMemcpyKind kind) {
  return kind == cudaMemcpyHostToHost || kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost ||
         kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
}

cudaError_t allocate(void** pointer, size_t bytes) {
  if (pointer == nullptr) return cudaErrorInvalidValue;
  *pointer = nullptr;
  if (bytes == 0) return cudaSuccess;  // as CUDA: no allocation, a null pointer
  constexpr size_t kAlignment = 64;
  const size_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded < bytes) return cudaErrorMemoryAllocation;
  *pointer = std::aligned_alloc(kAlignment, rounded);
  return *pointer != nullptr ? cudaSuccess : cudaErrorMemoryAllocation;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
  if (count == nullptr) return cudaErrorInvalidValue;
  *count = local_rank_count();
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  return device >= 0 && device < local_rank_count() ? cudaSuccess : cudaErrorInvalidDevice;
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess:
      return "no error (host stand-in)";
    case cudaErrorInvalidValue:
      return "invalid argument (host stand-in)";
    case cudaErrorInvalidDevice:
      return "invalid device ordinal (host stand-in: one device per local rank)";
    case cudaErrorMemoryAllocation:
      return "out of memory (host stand-in)";
    default:
      return "unknown error (host stand-in)";
  }
}

cudaError_t cudaMalloc(void** pointer, size_t bytes) {
  return allocate(pointer, bytes);
}

cudaError_t cudaMallocManaged(void** pointer, size_t bytes, unsigned int /*flags*/) {
  return allocate(pointer, bytes);
}

cudaError_t cudaFree(void* pointer) {
  std::free(pointer);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* pointer, int value, size_t bytes) {
  if (pointer == nullptr && bytes > 0) return cudaErrorInvalidValue;
  if (bytes > 0) std::memset(pointer, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* destination, const void* source, size_t bytes, cudaMemcpyKind kind) {
  if (!is_copy_kind(kind) || ((destination == nullptr || source == nullptr) && bytes > 0)) {
    return cudaErrorInvalidValue;
  }
  if (bytes > 0) std::memmove(destination, source, bytes);
  return cudaSuccess;
}

ncclResult_t ncclGetVersion(int* version) {
  if (version != nullptr) *version = 0;
  return ncclSystemError;
}

}  // extern "C"
