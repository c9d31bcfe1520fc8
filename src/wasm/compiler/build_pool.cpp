#include "wasm/compiler/build_pool.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>

namespace wavestack::wasm::compiler {

namespace {
std::atomic<BuildPool*> started_pool{nullptr};
}  // namespace

BuildPool& BuildPool::shared() {
  // Never destroyed: stopped at exit, while what tasks use still exists.
  static BuildPool* const pool = [] {
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    auto* created = new BuildPool(std::max(1U, cores - 1U));
    started_pool.store(created, std::memory_order_release);
    std::atexit([] { shared().stop(); });
    return created;
  }();
  return *pool;
}

BuildPool* BuildPool::started() {
  return started_pool.load(std::memory_order_acquire);
}

BuildPool::BuildPool(unsigned threads) {
  workers_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
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
