#include "decomp/cuda/pinned_allocations.hpp"

#include <mutex>
#include <unordered_set>

#include "decomp/cuda/device_memory.hpp"
#include "decomp/error.hpp"

namespace wavestack::decomp::cuda {
namespace {

// Callers may allocate and free from several threads (the C API has no thread rule).
struct PinnedSet {
  std::mutex mutex;
  std::unordered_set<void*> pointers;
};

PinnedSet& pinned_set() {
  static PinnedSet instance;
  return instance;
}

}  // namespace

void* pinned_allocate(size_t bytes) {
  void* pointer = pinned_host_allocate(bytes);
  auto& set = pinned_set();
  try {
    const std::lock_guard lock(set.mutex);
    set.pointers.insert(pointer);
  } catch (...) {
    // Unrecorded, it could never be freed: give it back now. A failure of that is dropped, as
    // the allocation failure on its way out is the one to report.
    try {
      pinned_host_release(pointer);
    } catch (const DecompError&) {
    }
    throw;
  }
  return pointer;
}

bool pinned_release(void* pointer) {
  auto& set = pinned_set();
  {
    const std::lock_guard lock(set.mutex);
    if (set.pointers.erase(pointer) == 0) return false;
  }
  pinned_host_release(pointer);
  return true;
}

}  // namespace wavestack::decomp::cuda
