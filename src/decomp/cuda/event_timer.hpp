// Times work enqueued on a stream with CUDA events, for the autotuner's GPU trials: host clocks
// would measure only the enqueueing of asynchronous kernels and NCCL calls.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace wavestack::decomp::cuda {

// A row of CUDA events: record event i on a stream before operation i and one more after the
// last; the time of operation i is then the span from event i to event i + 1. Nothing waits
// between the operations, so they run back to back as they would outside the autotuner.
class EventSequence {
 public:
  explicit EventSequence(size_t count);
  ~EventSequence();
  EventSequence(const EventSequence&) = delete;
  EventSequence& operator=(const EventSequence&) = delete;

  void record(size_t index, cudaStream_t stream);
  // Waits for event `to`; milliseconds between events `from` and `to`.
  double elapsed_ms(size_t from, size_t to) const;

 private:
  std::vector<cudaEvent_t> events_;
};

}  // namespace wavestack::decomp::cuda
