// Turns failed CUDA runtime and NCCL calls into DecompError (CUDA_ERROR / NCCL_ERROR) naming
// the call; the message format is device_support.hpp's, tested on the CPU.
#pragma once

#include <cuda_runtime.h>

#include "decomp/device_support.hpp"

namespace wavestack::decomp::cuda {

inline void check_cuda(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw cuda_failure(call, cudaGetErrorName(status), cudaGetErrorString(status));
}

}  // namespace wavestack::decomp::cuda
