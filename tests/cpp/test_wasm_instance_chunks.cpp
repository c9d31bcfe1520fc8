// How the cpu device splits a call's instances into tasks (src/wasm/instances/instance_chunks.hpp):
// a call of few instances spreads over every thread, a large one takes 64 a task.
#include <gtest/gtest.h>

#include "wasm/instances/instance_chunks.hpp"

namespace wavestack::wasm {
namespace {

std::size_t tasks(std::uint32_t count, std::size_t threads) {
  const std::size_t per = instances_per_task(count, threads);
  return (count + per - 1) / per;
}

TEST(WasmInstanceChunks, FewInstancesSpreadOverEveryThread) {
  EXPECT_EQ(instances_per_task(10, 2), 2U);  // 10 CPython instances: 5 tasks for 2 threads
  EXPECT_EQ(instances_per_task(2, 2), 1U);
  EXPECT_EQ(instances_per_task(16, 16), 1U);  // one instance a task down to one per thread
  for (const std::size_t threads : {1U, 2U, 16U}) {
    for (const std::uint32_t count : {1U, 3U, 17U, 64U, 100U}) {
      EXPECT_GE(tasks(count, threads), std::min<std::size_t>(count, threads)) << count << " on " << threads;
    }
  }
}

TEST(WasmInstanceChunks, ManyInstancesTakeAtMost64ATask) {
  EXPECT_EQ(instances_per_task(10'000, 2), kMaxInstancesPerTask);
  EXPECT_EQ(instances_per_task(100'000, 16), kMaxInstancesPerTask);
  EXPECT_EQ(instances_per_task(1'000, 2), 64U);  // 1000 / 8 = 125, capped
  EXPECT_EQ(instances_per_task(200, 2), 25U);
}

TEST(WasmInstanceChunks, WithLaneGroupsATaskHoldsWholeGroups) {
  EXPECT_EQ(instances_per_task(10, 2, 4), 4U);  // 3 tasks: both threads busy, groups whole
  EXPECT_EQ(instances_per_task(69, 2, 4), 12U);
  EXPECT_EQ(instances_per_task(4, 2, 4), 4U);
  EXPECT_EQ(instances_per_task(10'000, 2, 8), 64U);
  for (const std::uint32_t count : {5U, 33U, 1'000U}) {
    EXPECT_EQ(instances_per_task(count, 2, 4) % 4, 0U) << count;
  }
}

TEST(WasmInstanceChunks, AStepRunsQuantaUpToAFewMillionRecords) {
  EXPECT_EQ(quanta_for_step(4096, 1), 1024U);  // one instance: 4 M records before the host sees it
  EXPECT_EQ(quanta_for_step(4096, 2), 512U);
  EXPECT_EQ(quanta_for_step(4096, 10'000), 1U);  // many instances: one quantum a step, as before
  EXPECT_EQ(quanta_for_step(1, 1), 65536U);      // bounded
  EXPECT_EQ(quanta_for_step(0, 0), 65536U);
  EXPECT_EQ(quanta_for_step(0xFFFFFFFFU, 0xFFFFFFFFU), 1U);
}

TEST(WasmInstanceChunks, NoThreadsIsOneThreadAndNoInstancesOneTaskSize) {
  EXPECT_EQ(instances_per_task(10, 0), instances_per_task(10, 1));
  EXPECT_EQ(instances_per_task(0, 4), 1U);
}

}  // namespace
}  // namespace wavestack::wasm
