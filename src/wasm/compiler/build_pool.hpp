// Background builds of compiled units: units built ahead of need (the successors of a unit a
// call reached) and hot units rebuilt at a better tier. Each kind has a pool of its own
// (shared(priority)), of one fewer threads than the cores (at least one), so a thread that runs
// instances keeps a core. Both run at a lower scheduling priority than the calls (nice 5 ahead
// of need, nice 10 for hot rebuilds), so that speculative work takes the time the calls leave:
// on a busy machine a build the call waits for comes first. Within a
// pool tasks run by priority, then in order of submission. Stopped before the process exits (Python's atexit,
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

  // The process's pool for tasks of `priority`, started on first use.
  [[nodiscard]] static BuildPool& shared(Priority priority);

  // `nice`: added to each thread's scheduling niceness (Linux; 0 leaves it).
  explicit BuildPool(unsigned threads, int nice = 0);
  ~BuildPool();
  BuildPool(const BuildPool&) = delete;
  BuildPool& operator=(const BuildPool&) = delete;

  [[nodiscard]] unsigned threads() const noexcept { return static_cast<unsigned>(workers_.size()); }

  // Stops the process's pools that were started (at exit), after calling the hook given to
  // set_before_stop (which makes running builds finish soon).
  static void stop_shared();
  // Whether stop_shared has begun (the process is exiting): a build about to start gives up.
  [[nodiscard]] static bool stopping_shared();
  // How many times this process is a fork's child of a process that had started a pool. A
  // fork's child has none of the parent's threads: its pools start anew, and a build a pool
  // thread was running at the fork (a slot marked as building, a generation earlier) never
  // finishes, so whoever waits for it builds it instead.
  [[nodiscard]] static std::uint64_t fork_generation();
  static void set_before_stop(void (*hook)());

  // Queues `task`; false (and `task` never runs) once the pool stops. A task must catch what it
  // throws.
  bool submit(Priority priority, std::function<void()> task);
  // Stops taking tasks, drops the queued ones and waits for the running ones.
  void stop();
  // Drops the queued tasks (the pool keeps taking new ones).
  void drop_queued();

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
