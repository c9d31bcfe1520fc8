// A fixed pool of worker threads for data-parallel loops (the WAVE emulator's workgroups,
// the wasm cpu device's instances). The calling thread takes part in its own loop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wavestack::runtime {

class ThreadPool {
 public:
  // Workers to start: WAVESTACK_THREADS when set to a positive integer, else the core count.
  [[nodiscard]] static size_t default_thread_count();
  // The process-wide pool, created on first use with default_thread_count() threads.
  [[nodiscard]] static ThreadPool& shared();

  // `threads` counts the caller too: ThreadPool(1) runs every loop on the calling thread.
  explicit ThreadPool(size_t threads = default_thread_count());
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  [[nodiscard]] size_t size() const noexcept { return workers_.size() + 1; }

  // Calls body(i) for every i in [0, count), spread over the pool, and returns when all are
  // done. The first exception thrown by any call is rethrown here after the loop drains.
  // Loops started from inside a loop body run inline, so nesting cannot deadlock.
  void parallel_for(size_t count, const std::function<void(size_t)>& body);

 private:
  struct Loop;
  void worker_main();
  static void run_share(Loop& loop);
  // Waits up to kSpin for another loop after one ended, without sleeping (see worker_main).
  void spin_for_next_loop(uint64_t seen) const;

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::mutex loop_serializer_;  // one loop at a time per pool
  Loop* current_ = nullptr;
  std::atomic<uint64_t> generation_{0};  // written under mutex_, also read while spinning
  bool stopping_ = false;
};

}  // namespace wavestack::runtime
