#include "wasm/compiler/build_pool.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>

namespace wavestack::wasm::compiler {

namespace {

// Speculative builds yield to the threads a call waits on: ahead-of-need builds a little, hot
// rebuilds (a second or more each) a lot.
constexpr int kAheadNice = 5;
constexpr int kHotNice = 10;

std::mutex started_mutex;
std::array<BuildPool*, 2> started_pools{};  // by priority; never destroyed (stopped at exit)
void (*before_stop)() = nullptr;
std::atomic<bool> shared_stopping{false};
std::atomic<std::uint64_t> forks{0};

// A fork's child keeps the parent's pools' memory but none of their threads: it forgets them
// (they are never destroyed) and starts its own on first use. The registry's lock is held across
// the fork, so the child never inherits it locked by another thread.
void register_fork_handlers() {
  static const bool registered = [] {
    return pthread_atfork([] { started_mutex.lock(); }, [] { started_mutex.unlock(); },
                          [] {
                            started_pools = {};
                            forks.fetch_add(1, std::memory_order_relaxed);
                            started_mutex.unlock();
                          }) == 0;
  }();
  (void)registered;
}

}  // namespace

std::uint64_t BuildPool::fork_generation() {
  return forks.load(std::memory_order_relaxed);
}

BuildPool& BuildPool::shared(Priority priority) {
  register_fork_handlers();
  const std::lock_guard lock(started_mutex);
  BuildPool*& pool = started_pools.at(static_cast<std::size_t>(priority));
  if (pool == nullptr) {
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    pool = new BuildPool(std::max(1U, cores - 1U), priority == Priority::kHot ? kHotNice : kAheadNice);
    static const bool registered = [] { return std::atexit(stop_shared) == 0; }();
    (void)registered;
  }
  return *pool;
}

void BuildPool::set_before_stop(void (*hook)()) {
  const std::lock_guard lock(started_mutex);
  before_stop = hook;
}

bool BuildPool::stopping_shared() {
  return shared_stopping.load(std::memory_order_acquire);
}

void BuildPool::stop_shared() {
  shared_stopping.store(true, std::memory_order_release);
  std::array<BuildPool*, 2> pools{};
  void (*hook)() = nullptr;
  {
    const std::lock_guard lock(started_mutex);
    pools = started_pools;
    hook = before_stop;
  }
  // Queued tasks first, so that none starts after the running ones are cancelled.
  for (BuildPool* pool : pools) {
    if (pool != nullptr) pool->drop_queued();
  }
  if (hook != nullptr) hook();
  for (BuildPool* pool : pools) {
    if (pool != nullptr) pool->stop();
  }
}

BuildPool::BuildPool(unsigned threads, int nice) {
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) {
    workers_.emplace_back([this, nice] {
      // On Linux a thread has a niceness of its own (setpriority on its thread id).
      if (nice != 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice);
      work();
    });
  }
}

BuildPool::~BuildPool() {
  stop();
}

bool BuildPool::submit(Priority priority, std::function<void()> task) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return false;
    queue_.emplace(std::make_pair(static_cast<std::uint8_t>(priority), sequence_++), std::move(task));
  }
  wake_.notify_one();
  return true;
}

void BuildPool::drop_queued() {
  const std::lock_guard lock(mutex_);
  queue_.clear();
}

void BuildPool::stop() {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

void BuildPool::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    auto next = queue_.begin();
    std::function<void()> task = std::move(next->second);
    queue_.erase(next);
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace wavestack::wasm::compiler
