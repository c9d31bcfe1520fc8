// Background builds of compiled units: units built ahead of need (the successors of a unit a
// call reached) and hot units rebuilt at a better tier. Threads of their own, one fewer than
// the cores (at least one), so a thread that runs instances keeps a core; tasks run by
// priority, then in order of submission. Stopped before the process exits (Python's atexit,
// through wasmgpu's stop_background_builds; a C exit handler for other programs): the queue
// is dropped and running tasks are waited for. This must happen before the C library's exit
// handlers run, since LLVM destroys static objects it created on first use (after the pool
// started, so their handlers run before the pool's) while a build may still be using them.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace wavestack::wasm::compiler {

class BuildPool {
 public:
  enum class Priority : std::uint8_t { kAhead = 0, kHot = 1 };

  // The process's pool, started on first use.
  [[nodiscard]] static BuildPool& shared();

  explicit BuildPool(unsigned threads);
  ~BuildPool();
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

  [[nodiscard]] unsigned threads() const noexcept { return static_cast<unsigned>(workers_.size()); }

  // The process's pool if it was started, else null (nothing to stop).
  [[nodiscard]] static BuildPool* started();

  // Queues `task`; false (and `task` never runs) once the pool stops. A task must catch what it
  // throws.
  bool submit(Priority priority, std::function<void()> task);
  // Stops taking tasks, drops the queued ones and waits for the running ones.
  void stop();

 private:
  void work();

  std::mutex mutex_;
  std::condition_variable wake_;
  // Keyed by (priority, sequence): the front is the next task.
  std::map<std::pair<std::uint8_t, std::uint64_t>, std::function<void()>> queue_;
  std::uint64_t sequence_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace wavestack::wasm::compiler
