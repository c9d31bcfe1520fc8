// Host-side decisions of the CUDA build that need no CUDA call, kept apart from the CUDA code
// so the CPU-only build unit-tests them: workspace sizes in bytes as cudecompMalloc allocates
// them, and the errors raised for failed CUDA and NCCL calls. Header-only, so the CUDA library
// (src/decomp/cuda) uses it without linking the core.
#pragma once

#include <cstdint>
#include <string>

#include "decomp/error.hpp"

namespace wavestack::decomp {

// cudaMalloc returns 256-byte aligned memory; every workspace is a whole number of such units
// so the send and receive areas of one allocation can be handed to kernels as vector loads.
inline constexpr int64_t kDeviceAlignment = 256;

// Bytes of a workspace of `elements` elements of `element_bytes` each, rounded up to
// kDeviceAlignment. Negative inputs or a size beyond INT64_MAX are INVALID_USAGE naming
// `argument`. Zero elements give zero bytes (no allocation needed).
inline int64_t device_workspace_bytes(int64_t elements, int64_t element_bytes, const char* argument) {
  if (elements < 0 || element_bytes <= 0) invalid_argument(argument, "negative size or non-positive element size");
  int64_t bytes = 0;
  if (__builtin_mul_overflow(elements, element_bytes, &bytes) ||
      __builtin_add_overflow(bytes, kDeviceAlignment - 1, &bytes)) {
    invalid_argument(argument, "the workspace exceeds INT64_MAX bytes");
  }
  return bytes / kDeviceAlignment * kDeviceAlignment;
}

// Bytes of the send area of a transpose workspace: the receive area starts there, aligned so
// both halves start on kDeviceAlignment boundaries (send_elements of element_bytes each).
inline int64_t device_recv_area_offset(int64_t send_elements, int64_t element_bytes) {
  return device_workspace_bytes(send_elements, element_bytes, "workspace");
}

// "cudaMalloc failed: cudaErrorMemoryAllocation (out of memory)": CUDA_ERROR, naming the call.
inline DecompError cuda_failure(const std::string& call, const std::string& error_name, const std::string& error_text) {
  return {CUDECOMP_RESULT_CUDA_ERROR, call + " failed: " + error_name + " (" + error_text + ")"};
}
// "ncclAllReduce failed: unhandled cuda error (...)": NCCL_ERROR, naming the call.
inline DecompError nccl_failure(const std::string& call, const std::string& error_text) {
  return {CUDECOMP_RESULT_NCCL_ERROR, call + " failed: " + error_text};
}

}  // namespace wavestack::decomp
