#include "decomp/cuda/event_timer.hpp"

#include "decomp/cuda/cuda_check.hpp"

namespace wavestack::decomp::cuda {

EventTimer::EventTimer() {
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  const cudaError_t status = cudaEventCreate(&stop_);
  if (status != cudaSuccess) {
    cudaEventDestroy(start_);
    check_cuda(status, "cudaEventCreate");
  }
}

EventTimer::~EventTimer() {
  cudaEventDestroy(stop_);
  cudaEventDestroy(start_);
}

void EventTimer::start(cudaStream_t stream) {
  check_cuda(cudaEventRecord(start_, stream), "cudaEventRecord");
}

void EventTimer::stop(cudaStream_t stream) {
  check_cuda(cudaEventRecord(stop_, stream), "cudaEventRecord");
}

double EventTimer::elapsed_ms() const {
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0.0F;
  check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(ms);
}

}  // namespace wavestack::decomp::cuda
