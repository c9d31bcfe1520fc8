// Instances on a Vulkan device: one shader invocation per instance, running the interpreter
// shader (interpreter_glsl.hpp) or, in compiled mode, the shader of the unit holding each
// instance's next block (compiled_glsl.hpp); pipelines are shared per device and process
// (vulkan_device.hpp) and cached on disk by the runtime. Instances are split into groups whose
// state, memory and io buffers each fit the device's storage buffer range; instance i of a
// group owns a stride of each buffer. Arguments go up (packed, 8 bytes a parameter) and
// outcomes come back through the compact io buffer, never the state. Every loop a dispatch
// runs is bounded (instantiation in word ranges, both run loops by quantum and budget), as
// lavapipe ends all loops of an invocation after 65535 iterations.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "runtime/compute_context.hpp"
#include "runtime/device_info.hpp"
#include "wasm/instances/compiled_code.hpp"
#include "wasm/instances/instance_image.hpp"
#include "wasm/instances/instance_set.hpp"
#include "wasm/instances/transfer_tally.hpp"
#include "wasm/instances/vulkan_device.hpp"
#include "wasm/instances/vulkan_page_pool.hpp"
#include "wasm/module/module.hpp"

namespace wavestack::wasm {

class VulkanInstances final : public InstanceSet {
 public:
  // Throws ResourceLimit naming count / memory_pages / stack_size / batch_size /
  // max_resident_bytes when the spawn cannot fit the device or its budget (checked before
  // anything is allocated), std::invalid_argument (reservations), LinkError, InstantiationTrap.
  // With `compiled`, calls run compiled mode (its units' pipelines built when first reached).
  VulkanInstances(const Module& module, std::uint32_t count, const ReserveOptions& options, const SpawnLimits& limits,
                  const runtime::DeviceInfo& device, const runtime::ZeroedWords& wasi_region = runtime::ZeroedWords(),
                  std::shared_ptr<CompiledCode> compiled = nullptr);
  ~VulkanInstances() override;

  struct Push;  // the shader's push constants (vulkan_instances.cpp)

  [[nodiscard]] std::uint32_t count() const noexcept override { return count_; }
  [[nodiscard]] std::uint64_t resident_bytes() const noexcept override { return resident_bytes_; }
  [[nodiscard]] TransferCounts transfers() const noexcept override { return transfers_; }
  void begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                  std::optional<std::uint64_t> fuel) override;
  StepProgress step(std::uint32_t quantum, std::uint32_t max_quanta) override;
  [[nodiscard]] CallOutcome outcome(std::uint32_t result_count) override;
  void reset() override;
  [[nodiscard]] std::uint32_t memory_size_bytes(std::uint32_t instance) override;
  void read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) override;
  void write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) override;
  [[nodiscard]] std::uint64_t global_value(std::uint32_t instance, std::uint32_t global) override;
  [[nodiscard]] std::vector<std::uint32_t> wasi_region(std::uint32_t instance) override;
  void set_wasi_region(std::uint32_t instance, std::span<const std::uint32_t> region) override;
  [[nodiscard]] const std::vector<std::uint32_t>& program_image() const noexcept override { return image_.program; }

 private:
  struct Group {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t running = 0;
    std::uint64_t executed = 0;            // records its instances executed in this call so far
    std::set<std::uint32_t> wasi_pending;  // WASI functions whose calls wait for the service
    runtime::DeviceBuffer state;
    runtime::DeviceBuffer memory;  // the instances' memories, or with paged memory their pool
    runtime::DeviceBuffer io;
    std::vector<std::uint32_t> outcome;  // the io words of the last dispatch
    // Compiled mode: the blocks the running instances continue at, from the last step's summary,
    // when the outcomes were not read after it (else empty: next_units reads `outcome`).
    // (wasi_pending too comes from the summary then.)
    std::vector<std::uint32_t> next_blocks;
    bool outcome_stale = false;  // a summary was read after the last outcomes
  };
  void instantiate(bool clear_memory);
  // The template words instantiation copies into zeroed buffers (its shader's index space:
  // memory words, then state words): those that may be non-zero, the instance word, the page table.
  [[nodiscard]] std::vector<WordRun> instantiate_ranges(std::uint32_t memory_words) const;
  void dispatch(Group& group, const Push& push, const runtime::ComputePipeline& pipeline);
  [[nodiscard]] Push run_push(const Group& group, std::uint32_t quantum) const;
  void set_layout(Push& push) const;
  [[nodiscard]] std::uint64_t template_state_words() const;
  // The first io word of the group's arguments (after its outcomes and the sequences' counters).
  [[nodiscard]] std::uint32_t args_word(const Group& group) const;
  // The units the group's running instances continue in (compiled mode), and whether some
  // are at the host's call (the ENTRY id: a call's start, or a partly entered call); then the
  // callee's unit comes first (it goes on from the entry shader's share of the dispatch).
  [[nodiscard]] std::vector<std::uint32_t> next_units(const Group& group, bool& host_call) const;
  // The unit of the entry block of function `callee`, none for an import.
  [[nodiscard]] std::optional<std::uint32_t> callee_unit(std::uint32_t callee) const;
  // The unit's pipeline, or with `prefix` its prefixes' pipeline (the device mutex is held).
  const runtime::ComputePipeline& unit_pipeline(std::uint32_t unit, bool prefix = false);
  // Queues the pipelines of the units control can reach next from `unit` on the pool of builds
  // ahead of need (each once per instance set), so that drivers build them on other cores.
  void build_successors_ahead(std::uint32_t unit);
  // The pipeline of the host's calls (compiled_glsl.hpp's compiled_entry_shader_source).
  const runtime::ComputePipeline& entry_pipeline();
  // The pipeline that ends a step (compiled_glsl.hpp's compiled_outcome_shader_source).
  const runtime::ComputePipeline& outcome_pipeline();
  // `pipeline` built from `source` if empty (a unit's, a prefix's or the entry's), its build
  // counted as compilation.
  const runtime::ComputePipeline& built_pipeline(SharedPipeline& pipeline, const std::string& source);
  void run_prefixes(Group& group, const Push& push);
  // Compiled mode's step of one group: a dispatch per unit its instances continue in.
  void run_units(Group& group, Push push);
  [[nodiscard]] bool summarised(const Group& group) const;
  void dispatch_each(Group& group, Push push, std::span<const runtime::ComputePipeline* const> pipelines);
  [[nodiscard]] std::array<runtime::DeviceBuffer*, 5> bindings(Group& group);
  void read_summary(Group& group, std::span<const std::uint32_t> words);
  std::uint32_t run_sequence(Group& group, const Push& push, std::uint32_t length);
  void service_wasi(Group& group, const Push& push);
  void read_outcome(Group& group);
  Group& group_of(std::uint32_t instance, std::uint32_t& local);
  [[nodiscard]] std::uint64_t state_word(std::uint32_t local, std::uint64_t word) const {
    return 4ull * (std::uint64_t{local} * state_stride_ + word);
  }
  // Chooses dense or paged memory and sizes the groups (and their pools).
  struct SpawnBytes {
    std::uint64_t committed = 0;  // what the budget bounds
    std::uint64_t allocated = 0;  // with the pools' free frames
  };
  SpawnBytes plan_groups(std::uint32_t count, std::uint32_t io_words, const runtime::DeviceInfo& device);
  void check_range(std::uint32_t instance, std::uint64_t address, std::uint64_t length);
  // Instance `local` of `group`'s paged memory, as the host reads and writes it.
  [[nodiscard]] PagedMemory paged_memory(Group& group, std::uint32_t local) {
    return {device_->context, group.state, group.memory, state_word(local, image_.state_words + 1) / 4};
  }

  std::uint32_t count_;
  InstanceImage image_;
  std::optional<std::uint32_t> start_;
  SpawnLimits limits_;
  std::vector<std::uint32_t> params_;
  std::uint32_t global_count_ = 0;
  std::uint32_t io_stride_ = 0;
  // Paged memory (vulkan_page_pool.hpp): then each state ends in the page table.
  bool paged_ = false;
  PagePoolLayout pool_layout_;
  std::uint32_t state_stride_ = 0;
  std::uint32_t per_group_ = 0;
  std::uint32_t pool_frames_per_instance_ = 0;  // paged memory
  std::uint64_t resident_bytes_ = 0;
  TransferCounts transfers_;  // every operation below counts into it under the device mutex
  std::shared_ptr<CompiledCode> compiled_;
  std::vector<SharedPipeline> unit_pipelines_;    // compiled mode: per unit, once reached
  std::vector<bool> queued_ahead_;                // per unit: its build ahead of need was queued
  bool build_ahead_ = false;                      // WAVESTACK_WASM_BUILD_AHEAD, read at the spawn
  std::vector<SharedPipeline> prefix_pipelines_;  // per unit, once fuel first runs out in it
  SharedPipeline entry_pipeline_;                 // the host's calls, at the first
  SharedPipeline outcome_pipeline_;               // the end of every step
  std::uint32_t imported_functions_ = 0;
  std::shared_ptr<VulkanDevice> device_;
  runtime::DeviceBuffer program_;
  runtime::DeviceBuffer template_;
  // The call in progress: set by begin_call, used by the dispatches of step().
  std::uint32_t function_ = 0;
  std::uint32_t result_count_ = 0;
  std::optional<std::uint64_t> fuel_;
  bool begin_pending_ = false;
  std::uint32_t sequence_ = 1;          // dispatches of the next sequence (run_sequence): grows while steps are quick
  std::vector<std::uint32_t> results_;  // result count per function
  std::vector<Group> groups_;
};

}  // namespace wavestack::wasm
