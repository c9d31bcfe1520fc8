// The workspace a grid owns for operations called without one (an omitted work= in Python; the
// C API, as upstream's, requires the caller's): grown on demand and reused, in host memory for host buffers and in
// device memory (CUDA build) for device buffers. A caller's workspace must live where the data
// lives, or MPI and the copy kernels would read the wrong memory.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace wavestack::decomp {

// A caller's workspace must live where the operation's data lives (`device`): INVALID_USAGE
// naming "work" otherwise.
void check_work_location(const void* work, bool device);

class ManagedWorkspace {
 public:
  // `caller_work` when given (checked against `device`, INVALID_USAGE naming "work"), else the
  // managed buffer of at least `bytes` (nullptr for zero bytes). Operations on one grid never
  // overlap, so one buffer per memory kind suffices.
  void* resolve(void* caller_work, size_t bytes, bool device);

 private:
  std::vector<std::byte> host_;
  std::shared_ptr<void> device_;
  size_t device_bytes_ = 0;
};

}  // namespace wavestack::decomp
