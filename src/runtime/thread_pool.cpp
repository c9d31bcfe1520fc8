#include "runtime/thread_pool.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

namespace wavestack::runtime {

struct ThreadPool::Loop {
  size_t count = 0;
  const std::function<void(size_t)>* body = nullptr;
  std::atomic<size_t> next{0};
  std::atomic<size_t> participants{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::mutex done_mutex;
  std::condition_variable done;
};

namespace {
thread_local bool inside_pool_loop = false;

// How long a worker (and a caller waiting for its workers) spins before it sleeps. A caller that
// runs loops back to back, a kernel launched in a time-stepping loop or the wasm cpu device's
// steps, then finds its workers awake: a condition variable's wake-up took tens of
// microseconds here, a tenth of a 1M-element vector add's loop on two threads. 50 us of spinning
// at most, after each loop, is what an idle pool costs.
constexpr auto kSpin = std::chrono::microseconds(50);

void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Spins while `waiting()` holds, up to kSpin.
template <class Waiting>
void spin_while(Waiting waiting) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (unsigned round = 0; waiting(); ++round) {
    cpu_relax();
    if ((round & 63U) == 63U && std::chrono::steady_clock::now() >= until) return;
  }
}
}  // namespace

size_t ThreadPool::default_thread_count() {
  if (const char* text = std::getenv("WAVESTACK_THREADS"); text != nullptr && *text) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end != nullptr && *end == '\0' && value > 0) return static_cast<size_t>(value);
  }
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : cores;
}

ThreadPool& ThreadPool::shared() {
  // Deliberately leaked: joining threads during static destruction can deadlock at exit.
  static ThreadPool* pool = new ThreadPool();
  return *pool;
}

ThreadPool::ThreadPool(size_t threads) {
  const size_t extra = threads > 1 ? threads - 1 : 0;
  workers_.reserve(extra);
  for (size_t i = 0; i < extra; ++i) workers_.emplace_back([this] { worker_main(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& worker : workers_) worker.join();
}

void ThreadPool::run_share(Loop& loop) {
  const bool was_inside = inside_pool_loop;
  inside_pool_loop = true;
  for (size_t i = loop.next.fetch_add(1); i < loop.count; i = loop.next.fetch_add(1)) {
    try {
      (*loop.body)(i);
    } catch (...) {
      std::lock_guard lock(loop.error_mutex);
      if (!loop.error) loop.error = std::current_exception();
      // Stop handing out new indices; those already running finish.
      loop.next.store(loop.count);
    }
  }
  inside_pool_loop = was_inside;
}

void ThreadPool::spin_for_next_loop(uint64_t seen) const {
  spin_while([&] { return generation_.load(std::memory_order_acquire) == seen; });
}

void ThreadPool::worker_main() {
  uint64_t seen = 0;
  for (;;) {
    if (seen != 0) spin_for_next_loop(seen);
    Loop* loop = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
      loop = current_;
      if (loop == nullptr) continue;
      // Registered under mutex_, so the caller cannot retire the loop without seeing us.
      loop->participants.fetch_add(1);
    }
    run_share(*loop);
    // Leave under the loop's own lock: once the caller sees zero participants it may free
    // the loop, and this thread touches nothing of it after unlocking.
    std::lock_guard lock(loop->done_mutex);
    loop->participants.fetch_sub(1);
    loop->done.notify_all();
  }
}

void ThreadPool::parallel_for(size_t count, const std::function<void(size_t)>& body) {
  if (count == 0) return;
  if (workers_.empty() || count == 1 || inside_pool_loop) {
    for (size_t i = 0; i < count; ++i) body(i);
    return;
  }
  std::lock_guard serial(loop_serializer_);
  Loop loop;
  loop.count = count;
  loop.body = &body;
  {
    std::lock_guard lock(mutex_);
    current_ = &loop;
    ++generation_;
  }
  wake_.notify_all();
  run_share(loop);
  // Every index has been handed out; retire the loop so no late worker joins it, then wait
  // for the workers still running an index.
  {
    std::lock_guard lock(mutex_);
    current_ = nullptr;
  }
  spin_while([&] { return loop.participants.load() != 0; });
  {
    std::unique_lock lock(loop.done_mutex);
    loop.done.wait(lock, [&] { return loop.participants.load() == 0; });
  }
  if (loop.error) std::rethrow_exception(loop.error);
}

}  // namespace wavestack::runtime
