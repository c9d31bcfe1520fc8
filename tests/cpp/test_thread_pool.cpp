#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/thread_pool.hpp"
#include "test_support.hpp"

using wavestack::runtime::ThreadPool;

TEST(ThreadPool, VisitsEveryIndexExactlyOnce) {
  ThreadPool pool(4);
  for (size_t count : {0UL, 1UL, 3UL, 1000UL, 100003UL}) {
    std::vector<std::atomic<int>> visits(count);
    pool.parallel_for(count, [&](size_t i) { visits[i].fetch_add(1); });
    for (size_t i = 0; i < count; ++i) ASSERT_EQ(visits[i].load(), 1) << "index " << i << " of " << count;
  }
}

TEST(ThreadPool, UsesSeveralThreads) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  std::atomic<int> arrived{0};
  // Each body waits until four have started, which only works if four threads run at once.
  pool.parallel_for(4, [&](size_t) {
    {
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    }
    arrived.fetch_add(1);
    while (arrived.load() < 4) std::this_thread::yield();
  });
  EXPECT_EQ(seen.size(), 4U);
}

TEST(ThreadPool, SingleThreadPoolRunsInOrderOnCaller) {
  ThreadPool pool(1);
  EXPECT_EQ(pool.size(), 1U);
  std::vector<size_t> order;
  const auto caller = std::this_thread::get_id();
  pool.parallel_for(50, [&](size_t i) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  for (size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i], i);
  EXPECT_EQ(order.size(), 50U);
}

TEST(ThreadPool, RethrowsTheFirstExceptionAndStaysUsable) {
  ThreadPool pool(3);
  EXPECT_THROW(pool.parallel_for(1000,
                                 [](size_t i) {
                                   if (i == 17) throw std::runtime_error("boom at 17");
                                 }),
               std::runtime_error);
  std::atomic<size_t> sum{0};
  pool.parallel_for(100, [&](size_t i) { sum.fetch_add(i); });
  EXPECT_EQ(sum.load(), 4950U);
}

TEST(ThreadPool, NestedLoopsRunInline) {
  ThreadPool pool(2);
  std::atomic<int> total{0};
  pool.parallel_for(8, [&](size_t) { pool.parallel_for(8, [&](size_t) { total.fetch_add(1); }); });
  EXPECT_EQ(total.load(), 64);
}

TEST(ThreadPool, DefaultSizeHonoursEnvironment) {
  {
    const wavestack::testing::ScopedEnv three("WAVESTACK_THREADS", "3");
    EXPECT_EQ(ThreadPool::default_thread_count(), 3U);
  }
  const wavestack::testing::ScopedEnv invalid("WAVESTACK_THREADS", "zero");
  EXPECT_EQ(ThreadPool::default_thread_count(), std::max(1U, std::thread::hardware_concurrency()));
}
