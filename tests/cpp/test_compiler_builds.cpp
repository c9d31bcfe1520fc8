// What compiled mode's builds rest on, apart from any module: the tier plans
// (WAVESTACK_WASM_CPU_TIERS), the build pool's order and its stop, and the progress setting.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/error.hpp"
#include "wasm/baseline/block_compiler.hpp"
#include "wasm/compiler/build_pool.hpp"
#include "wasm/compiler/build_progress.hpp"
#include "wasm/compiler/cpu_tiers.hpp"
#include "wasm/instances/build_ahead_setting.hpp"

namespace {

using wavestack::runtime::InvalidArgument;
using wavestack::wasm::compiler::BuildPool;
using wavestack::wasm::compiler::cpu_tier_plan;
using wavestack::wasm::compiler::CpuTier;
using wavestack::wasm::compiler::progress_mode;
using wavestack::wasm::compiler::ProgressMode;

TEST(CpuTierPlans, DefaultsFollowTheBaselineAndTheInProcessCompiler) {
  const auto with = cpu_tier_plan(nullptr, true);
  const auto without = cpu_tier_plan("", false);
  if (wavestack::wasm::baseline::baseline_supported()) {
    EXPECT_EQ(with.first, CpuTier::kBaseline);
    EXPECT_EQ(with.hot, CpuTier::kOptimized);
    EXPECT_EQ(with.prefixes, CpuTier::kFast);
    EXPECT_EQ(without.first, CpuTier::kBaseline);
    EXPECT_EQ(without.hot, CpuTier::kHost);
    EXPECT_EQ(without.prefixes, CpuTier::kHost);
  } else {
    EXPECT_EQ(with.first, CpuTier::kFast);
    EXPECT_EQ(with.hot, CpuTier::kOptimized);
    EXPECT_EQ(without.first, CpuTier::kHost);
    EXPECT_FALSE(without.hot.has_value());
  }
}

TEST(CpuTierPlans, TheBaselineComesOnlyFirstAndItsPrefixesAreBuiltFromText) {
  if (!wavestack::wasm::baseline::baseline_supported()) GTEST_SKIP() << "no baseline compiler for this processor";
  const auto alone = cpu_tier_plan("baseline", true);
  EXPECT_EQ(alone.first, CpuTier::kBaseline);
  EXPECT_FALSE(alone.hot.has_value());
  EXPECT_EQ(alone.prefixes, CpuTier::kFast);
  EXPECT_EQ(cpu_tier_plan("baseline", false).prefixes, CpuTier::kHost);
  EXPECT_EQ(cpu_tier_plan("baseline,fast", true).hot, CpuTier::kFast);
  EXPECT_EQ(cpu_tier_plan("fast,host", true).prefixes, CpuTier::kFast);
  for (const char* bad : {"fast,baseline", "baseline,baseline", "host,baseline"}) {
    EXPECT_THROW((void)cpu_tier_plan(bad, true), InvalidArgument) << bad;
  }
}

TEST(CpuTierPlans, ExplicitPlansParse) {
  const auto one = cpu_tier_plan("optimized", true);
  EXPECT_EQ(one.first, CpuTier::kOptimized);
  EXPECT_FALSE(one.hot.has_value());
  const auto two = cpu_tier_plan("fast,host", true);
  EXPECT_EQ(two.first, CpuTier::kFast);
  EXPECT_EQ(two.hot, CpuTier::kHost);
  EXPECT_EQ(cpu_tier_plan("host", false).first, CpuTier::kHost);
}

TEST(CpuTierPlans, BadPlansNameTheVariable) {
  for (const char* bad : {"turbo", "fast,fast", "fast,optimized,host", ",", "fast,"}) {
    try {
      (void)cpu_tier_plan(bad, true);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InvalidArgument& error) {
      EXPECT_EQ(error.argument(), "WAVESTACK_WASM_CPU_TIERS") << bad;
    }
  }
  try {
    (void)cpu_tier_plan("fast", false, "no LLVM here");
    ADD_FAILURE() << "an in-process tier without the in-process compiler";
  } catch (const InvalidArgument& error) {
    EXPECT_NE(std::string(error.what()).find("no LLVM here"), std::string::npos) << error.what();
  }
}

TEST(CpuTierPlans, BuildAheadIsOnOrOff) {
  using wavestack::wasm::build_ahead_enabled;
  EXPECT_TRUE(build_ahead_enabled(nullptr, true));
  EXPECT_FALSE(build_ahead_enabled(nullptr, false));  // a software adapter's default
  EXPECT_FALSE(build_ahead_enabled("", false));
  EXPECT_TRUE(build_ahead_enabled("on", false));
  EXPECT_FALSE(build_ahead_enabled("off", true));
  try {
    (void)build_ahead_enabled("sometimes", true);
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "WAVESTACK_WASM_BUILD_AHEAD");
  }
}

TEST(BuildPool, RunsTasksByPriorityThenInOrder) {
  BuildPool pool(1);
  std::mutex mutex;
  std::condition_variable released;
  bool go = false;
  std::vector<int> order;
  // The one worker waits in the first task while the others queue up.
  ASSERT_TRUE(pool.submit(BuildPool::Priority::kHot, [&] {
    std::unique_lock lock(mutex);
    released.wait(lock, [&] { return go; });
  }));
  std::atomic<int> ran{0};
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(pool.submit(BuildPool::Priority::kHot, [&, k] {
      const std::lock_guard lock(mutex);
      order.push_back(10 + k);
      ++ran;
    }));
  }
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(pool.submit(BuildPool::Priority::kAhead, [&, k] {
      const std::lock_guard lock(mutex);
      order.push_back(k);
      ++ran;
    }));
  }
  {
    const std::lock_guard lock(mutex);
    go = true;
  }
  released.notify_all();
  for (int spin = 0; spin < 5000 && ran < 5; ++spin) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const std::lock_guard lock(mutex);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 10, 11, 12}));
}

TEST(BuildPool, StopDropsQueuedTasksWaitsForRunningOnesAndRefusesNewOnes) {
  BuildPool pool(1);
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  std::atomic<int> dropped_ran{0};
  ASSERT_TRUE(pool.submit(BuildPool::Priority::kAhead, [&] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    finished = true;
  }));
  while (!started) std::this_thread::yield();
  ASSERT_TRUE(pool.submit(BuildPool::Priority::kAhead, [&] { ++dropped_ran; }));
  pool.stop();
  EXPECT_TRUE(finished);
  EXPECT_EQ(dropped_ran, 0);
  EXPECT_FALSE(pool.submit(BuildPool::Priority::kAhead, [&] { ++dropped_ran; }));
  EXPECT_EQ(dropped_ran, 0);
}

TEST(BuildProgress, SettingsParseAndBadOnesNameTheVariable) {
  EXPECT_EQ(progress_mode(nullptr), ProgressMode::kOn);
  EXPECT_EQ(progress_mode("on"), ProgressMode::kOn);
  EXPECT_EQ(progress_mode("0"), ProgressMode::kOff);
  EXPECT_EQ(progress_mode("off"), ProgressMode::kOff);
  EXPECT_EQ(progress_mode("always"), ProgressMode::kAlways);
  try {
    (void)progress_mode("loud");
    ADD_FAILURE() << "accepted";
  } catch (const InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "WAVESTACK_PROGRESS");
  }
}

}  // namespace
