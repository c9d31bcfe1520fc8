// A spawn: N instances of one module on one device. The interface the bindings drive; the
// cpu device (cpu_instances.hpp) and the Vulkan device (vulkan_instances.hpp) implement it
// over the same layout (interpreter_layout.glsl) and the same device code.
//
// A call is started on every instance, then advanced in dispatches of at most `quantum`
// records per instance (so the caller can cancel between dispatches and no dispatch runs
// unbounded), and its outcome is read when none is running.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "wasm/module/resource_limit.hpp"

namespace wavestack::wasm {

// Instantiation failed: an active segment was out of bounds or the start function trapped.
class InstantiationTrap : public std::runtime_error {
 public:
  explicit InstantiationTrap(std::uint32_t code) : std::runtime_error("instantiation trapped"), code_(code) {}
  [[nodiscard]] std::uint32_t code() const noexcept { return code_; }

 private:
  std::uint32_t code_;
};

// The most instances one batch (one dispatch) holds on a device without a limit of its own:
// 65,535 workgroups of 64, the dispatch every Vulkan device guarantees. The cpu device applies
// it, so that a spawn accepted there is not refused on a GPU for its batch_size.
inline constexpr std::uint64_t kMaxBatchInstances = 65535ull * 64;

// What a spawn is given besides the reservations.
struct SpawnLimits {
  std::optional<std::uint64_t> start_fuel;  // bounds the start function (nullopt: unbounded)
  std::uint32_t quantum = 4096;             // records per instance per dispatch
  std::optional<std::uint32_t> batch_size;  // instances per device batch (nullopt: as many as fit)
  std::uint64_t max_resident_bytes = 512ull << 20;
  // The index of instance 0 in a larger logical set (wasmgpu.mpi's block on this rank): WASI's
  // random_get nonce is first_instance + i, so a block draws what one spawn of the whole set does.
  std::uint32_t first_instance = 0;
};

// How many instances are still running after a dispatch, and the records all instances
// executed in this call so far.
struct StepProgress {
  std::uint32_t running = 0;
  std::uint64_t executed = 0;
  std::uint32_t grouped = 0;  // the cpu device: instances that ran in a lane group in this step
  std::uint32_t quanta = 1;   // dispatches of `quantum` this step ran one after another (cpu: several)
};

// Host-device traffic of a spawn since it was created, counted by the Vulkan context where it
// happens (compute_context.cpp): queue submissions, host waits on their fences, and bytes
// copied to and from device buffers (staging copies and writes to mapped memory alike). The
// cpu device runs on host memory and counts none. Callers take differences around a call.
struct TransferCounts {
  std::uint64_t submits = 0;
  std::uint64_t fence_waits = 0;
  std::uint64_t bytes_uploaded = 0;
  std::uint64_t bytes_downloaded = 0;
};

struct CallOutcome {
  std::vector<std::uint32_t> status;      // per instance (interpreter_layout.glsl STATUS_*)
  std::vector<std::uint32_t> trap;        // per instance trap code
  std::vector<std::uint32_t> trap_index;  // per instance: the element index of an element trap
  std::vector<std::uint64_t> results;     // per instance, result_count slots (valid when returned)
  std::vector<std::uint32_t> exit_state;  // per instance with WASI: 0 running, 1 exited, 2 signalled
  std::vector<std::uint32_t> exit_code;   // per instance: proc_exit's code or proc_raise's signal
  std::uint64_t executed = 0;             // records executed by all instances in this call
};

class InstanceSet {
 public:
  virtual ~InstanceSet() = default;
  InstanceSet() = default;
  InstanceSet(const InstanceSet&) = delete;
  InstanceSet& operator=(const InstanceSet&) = delete;

  [[nodiscard]] virtual std::uint32_t count() const noexcept = 0;
  [[nodiscard]] virtual std::uint64_t resident_bytes() const noexcept = 0;
  // Running totals since the spawn (instantiation included).
  [[nodiscard]] virtual TransferCounts transfers() const noexcept = 0;

  // args: count * params slots (bit patterns), instance-major. fuel: records per instance.
  virtual void begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                          std::optional<std::uint64_t> fuel) = 0;
  // One dispatch of at most `quantum` records per instance; a device may run up to
  // `max_quanta` of them one after another before it returns (the cpu device does, for a few
  // milliseconds: StepProgress::quanta says how many ran).
  virtual StepProgress step(std::uint32_t quantum, std::uint32_t max_quanta) = 0;
  [[nodiscard]] virtual CallOutcome outcome(std::uint32_t result_count) = 0;

  // Restores every instance to the template and reruns the start function.
  virtual void reset() = 0;

  [[nodiscard]] virtual std::uint32_t memory_size_bytes(std::uint32_t instance) = 0;
  virtual void read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) = 0;
  virtual void write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) = 0;
  // A global's 64-bit slot (references: the u32 value).
  [[nodiscard]] virtual std::uint64_t global_value(std::uint32_t instance, std::uint32_t global) = 0;
  // A copy of the instance's WASI region (empty without WASI), for wasi_inspect.hpp.
  [[nodiscard]] virtual std::vector<std::uint32_t> wasi_region(std::uint32_t instance) = 0;
  // Calls `reader` with the instance's WASI region (empty without WASI), for wasi_inspect.hpp's
  // readers: the cpu device passes its state in place, since the region holds the whole file
  // system (tens of MiB by default) and a copy of it cost more than the run of a small program.
  virtual void read_wasi_region(std::uint32_t instance,
                                const std::function<void(std::span<const std::uint32_t>)>& reader) {
    const std::vector<std::uint32_t> region = wasi_region(instance);
    reader(region);
  }
  // Replaces the instance's WASI region (a changed copy of wasi_region(instance), as long).
  virtual void set_wasi_region(std::uint32_t instance, std::span<const std::uint32_t> region) = 0;
  // The program image every instance runs (tests inspect compiled mode's form of it).
  [[nodiscard]] virtual const std::vector<std::uint32_t>& program_image() const noexcept = 0;

 protected:
  // Runs the start function (if any) on every instance within the spawn's fuel; throws
  // InstantiationTrap if one traps or runs out of fuel.
  void run_start(std::optional<std::uint32_t> start, const SpawnLimits& limits);

  // Throws ResourceLimit when `bytes` exceeds the spawn's budget.
  static void check_budget(std::uint64_t bytes, const SpawnLimits& limits, std::uint32_t count);
};

}  // namespace wavestack::wasm
