// Times work enqueued on a stream with CUDA events, for the autotuner's GPU trials: host clocks
// would measure only the enqueueing of asynchronous kernels and NCCL calls.
#pragma once

#include <cuda_runtime.h>

namespace wavestack::decomp::cuda {

class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  // Waits for the stop event; milliseconds between start and stop.
  double elapsed_ms() const;

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace wavestack::decomp::cuda
