// How the cpu device splits a call's instances into thread-pool tasks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace wavestack::wasm {

// The most instances of one task: enough that scheduling costs nothing next to the work.
inline constexpr std::size_t kMaxInstancesPerTask = 64;

// Instances per task for a call of `count` instances over `threads` threads: at most 64, and
// few enough that each thread gets about four tasks, down to one instance a task. With a fixed
// 64 a call of 64 instances or fewer ran on one thread (10 CPython instances used one core of
// two); four tasks a thread keep uneven instances balanced. Where the step may run lane groups
// of `lanes` consecutive instances (2 or more; 0 for none), a task holds whole groups.
[[nodiscard]] constexpr std::size_t instances_per_task(std::uint32_t count, std::size_t threads,
                                                       std::uint32_t lanes = 0) {
  const std::size_t tasks = 4 * std::max<std::size_t>(threads, 1);
  std::size_t per = (std::size_t{count} + tasks - 1) / tasks;
  if (lanes >= 2) per = (per + lanes - 1) / lanes * lanes;
  return std::clamp<std::size_t>(per, 1, kMaxInstancesPerTask);
}

// Records one step should run at most: about a few milliseconds of one core.
inline constexpr std::uint64_t kStepRecords = std::uint64_t{1} << 22;

// Quanta a step runs one after another for `count` instances: enough to reach about
// kStepRecords records in all, at least one, at most 65536.
[[nodiscard]] constexpr std::uint32_t quanta_for_step(std::uint32_t quantum, std::uint32_t count) {
  const std::uint64_t per_quantum =
      std::uint64_t{std::max<std::uint32_t>(quantum, 1)} * std::max<std::uint32_t>(count, 1);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(kStepRecords / per_quantum, 1, 65536));
}

}  // namespace wavestack::wasm
