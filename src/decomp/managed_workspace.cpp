#include "decomp/managed_workspace.hpp"

#include "decomp/device_dispatch.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp {

void check_work_location(const void* work, bool device) {
  if (device != is_device_buffer(work)) {
    invalid_argument("work", device ? "host memory, but the data is on the device (allocate it with cudaMalloc)"
                                    : "device memory, but the data is in host memory");
  }
}

void* ManagedWorkspace::resolve(void* caller_work, size_t bytes, bool device) {
  if (caller_work != nullptr) {
    check_work_location(caller_work, device);
    return caller_work;
  }
  if (bytes == 0) return nullptr;
  if (device) {
    if (device_bytes_ < bytes) {
      device_.reset();  // free the smaller buffer before allocating the larger one
      device_ = allocate_device(bytes);
      device_bytes_ = bytes;
    }
    return device_.get();
  }
  if (host_.size() < bytes) host_.resize(bytes);
  return host_.data();
}

}  // namespace wavestack::decomp
