// A spawn: N instances of one module on the `cpu` device. Instance i's state and memory are
// slices of two shared arrays (fixed strides), so many small instances cost little; the
// program image and the instance template are built once. A call is started for every
// instance, then advanced in dispatches of at most `quantum` records per instance, so the
// caller can cancel between dispatches; the outcome is read when none is running.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <span>
#include <vector>

#include "wasm/instance_image.hpp"
#include "wasm/module.hpp"

namespace wavestack::wasm {

// Instantiation failed: an active segment was out of bounds or the start function trapped.
class InstantiationTrap : public std::runtime_error {
 public:
  explicit InstantiationTrap(std::uint32_t code) : std::runtime_error("instantiation trapped"), code_(code) {}
  [[nodiscard]] std::uint32_t code() const noexcept { return code_; }

 private:
  std::uint32_t code_;
};

struct CallOutcome {
  std::vector<std::uint32_t> status;   // per instance (interpreter_layout.glsl STATUS_*)
  std::vector<std::uint32_t> trap;     // per instance trap code
  std::vector<std::uint32_t> trap_index;  // per instance: the element index of an element trap
  std::vector<std::uint64_t> results;  // per instance, result_count slots (valid when returned)
  std::uint64_t executed = 0;          // records executed by all instances in this call
};

class CpuInstances {
 public:
  // Allocates and instantiates (segments from the template, then the start function).
  // Throws LinkError, std::invalid_argument (reservations), InstantiationTrap.
  CpuInstances(const Module& module, std::uint32_t count, const ReserveOptions& options);

  [[nodiscard]] std::uint32_t count() const noexcept { return count_; }
  [[nodiscard]] std::uint64_t resident_bytes() const noexcept;
  [[nodiscard]] std::uint32_t memory_capacity_pages() const noexcept { return image_.memory_capacity_pages; }

  // args: count * params slots (bit patterns), instance-major. fuel: records per instance.
  void begin_call(std::uint32_t function, std::span<const std::uint64_t> args, std::optional<std::uint64_t> fuel);
  // One dispatch; returns how many instances are still running.
  std::uint32_t step(std::uint32_t quantum);
  [[nodiscard]] CallOutcome outcome(std::uint32_t result_count) const;

  // Restores every instance to the template and reruns the start function.
  void reset();

  [[nodiscard]] std::uint32_t memory_size_bytes(std::uint32_t instance) const;
  void read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) const;
  void write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data);
  // A global's 64-bit slot (references: the u32 value).
  [[nodiscard]] std::uint64_t global_value(std::uint32_t instance, std::uint32_t global) const;

 private:
  void instantiate();
  std::uint32_t* state(std::uint32_t i) { return state_.data() + std::size_t{i} * image_.state_words; }
  std::uint32_t* memory(std::uint32_t i) { return memory_.get() + std::size_t{i} * image_.memory_words; }
  [[nodiscard]] const std::uint32_t* memory(std::uint32_t i) const {
    return memory_.get() + std::size_t{i} * image_.memory_words;
  }
  struct Free {
    void operator()(std::uint32_t* p) const noexcept { std::free(p); }
  };

  std::uint32_t count_;
  InstanceImage image_;
  std::optional<std::uint32_t> start_;
  std::vector<std::uint32_t> state_;
  // calloc: the operating system provides zero pages lazily, so a large reservation costs
  // only what the instances touch.
  std::unique_ptr<std::uint32_t, Free> memory_;
  std::size_t memory_total_words_ = 0;
  std::uint32_t global_count_ = 0;
  bool instantiated_ = false;
  std::vector<std::uint32_t> params_;  // per function
};

}  // namespace wavestack::wasm
