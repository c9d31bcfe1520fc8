#include "decomp/cuda/event_timer.hpp"

#include "decomp/cuda/cuda_check.hpp"

namespace wavestack::decomp::cuda {

EventSequence::EventSequence(size_t count) {
  events_.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    cudaEvent_t event = nullptr;
    const cudaError_t status = cudaEventCreate(&event);
    if (status != cudaSuccess) {
      for (cudaEvent_t created : events_) cudaEventDestroy(created);  // the destructor will not run
      check_cuda(status, "cudaEventCreate");
    }
    events_.push_back(event);
  }
}

EventSequence::~EventSequence() {
  for (cudaEvent_t event : events_) cudaEventDestroy(event);
}

void EventSequence::record(size_t index, cudaStream_t stream) {
  check_cuda(cudaEventRecord(events_.at(index), stream), "cudaEventRecord");
}

double EventSequence::elapsed_ms(size_t from, size_t to) const {
  check_cuda(cudaEventSynchronize(events_.at(to)), "cudaEventSynchronize");
  float ms = 0.0F;
  check_cuda(cudaEventElapsedTime(&ms, events_.at(from), events_.at(to)), "cudaEventElapsedTime");
  return static_cast<double>(ms);
}

}  // namespace wavestack::decomp::cuda
