// Instances on a Vulkan device: one shader invocation per instance running the interpreter
// shader (interpreter_glsl.hpp), compiled once per device and process (and cached on disk by
// the runtime). Instances are split into groups whose state, memory and io buffers each fit
// the device's storage buffer range; instance i of a group owns a stride of each buffer.
// Arguments go up and outcomes come back through the compact io buffer, never the state.
// Every loop a dispatch runs is bounded (instantiation in word ranges, the interpreter by
// quantum and budget), as lavapipe ends all loops of an invocation after 65535 iterations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <vector>

#include "runtime/compute_context.hpp"
#include "runtime/device_info.hpp"
#include "wasm/instance_image.hpp"
#include "wasm/instance_set.hpp"
#include "wasm/module.hpp"

namespace wavestack::wasm {

struct VulkanDevice;  // the context and interpreter pipeline shared by the spawns on one device

class VulkanInstances final : public InstanceSet {
 public:
  // Throws ResourceLimit naming count / memory_pages / stack_size / batch_size /
  // max_resident_bytes when the spawn cannot fit the device or its budget (checked before
  // anything is allocated), std::invalid_argument (reservations), LinkError, InstantiationTrap.
  VulkanInstances(const Module& module, std::uint32_t count, const ReserveOptions& options, const SpawnLimits& limits,
                  const runtime::DeviceInfo& device, std::span<const std::uint32_t> wasi_region = {});
  ~VulkanInstances() override;

  struct Push;  // the shader's push constants (vulkan_instances.cpp)

  [[nodiscard]] std::uint32_t count() const noexcept override { return count_; }
  [[nodiscard]] std::uint64_t resident_bytes() const noexcept override { return resident_bytes_; }
  void begin_call(std::uint32_t function, std::span<const std::uint64_t> args,
                  std::optional<std::uint64_t> fuel) override;
  StepProgress step(std::uint32_t quantum) override;
  [[nodiscard]] CallOutcome outcome(std::uint32_t result_count) override;
  void reset() override;
  [[nodiscard]] std::uint32_t memory_size_bytes(std::uint32_t instance) override;
  void read_memory(std::uint32_t instance, std::uint64_t address, std::span<std::uint8_t> out) override;
  void write_memory(std::uint32_t instance, std::uint64_t address, std::span<const std::uint8_t> data) override;
  [[nodiscard]] std::uint64_t global_value(std::uint32_t instance, std::uint32_t global) override;
  [[nodiscard]] std::vector<std::uint32_t> wasi_region(std::uint32_t instance) override;
  [[nodiscard]] const std::vector<std::uint32_t>& program_image() const noexcept override { return image_.program; }

  // Seconds the interpreter pipeline took to build (0 when this process already had it),
  // and whether its SPIR-V came from the disk cache.
  [[nodiscard]] double pipeline_seconds() const noexcept { return pipeline_seconds_; }
  [[nodiscard]] bool pipeline_from_cache() const noexcept { return pipeline_from_cache_; }

 private:
  struct Group {
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t running = 0;
    std::uint64_t executed = 0;            // records its instances executed in this call so far
    std::set<std::uint32_t> wasi_pending;  // WASI functions whose calls wait for the service
    runtime::DeviceBuffer state;
    runtime::DeviceBuffer memory;
    runtime::DeviceBuffer io;
    std::vector<std::uint32_t> outcome;  // the io words of the last dispatch
  };
  void instantiate(bool clear_memory);
  void dispatch(Group& group, const Push& push, std::optional<std::uint32_t> wasi_id = std::nullopt);
  const runtime::ComputePipeline& wasi_pipeline(std::uint32_t id);
  void read_outcome(Group& group);
  Group& group_of(std::uint32_t instance, std::uint32_t& local);
  void check_range(std::uint32_t instance, std::uint64_t address, std::uint64_t length);

  std::uint32_t count_;
  InstanceImage image_;
  std::optional<std::uint32_t> start_;
  SpawnLimits limits_;
  std::vector<std::uint32_t> params_;
  std::uint32_t global_count_ = 0;
  std::uint32_t io_stride_ = 0;
  std::uint32_t per_group_ = 0;
  std::uint64_t resident_bytes_ = 0;
  double pipeline_seconds_ = 0.0;
  bool pipeline_from_cache_ = false;
  std::shared_ptr<VulkanDevice> device_;
  runtime::DeviceBuffer program_;
  runtime::DeviceBuffer template_;
  // The call in progress: set by begin_call, used by the dispatches of step().
  std::uint32_t function_ = 0;
  std::uint32_t result_count_ = 0;
  std::optional<std::uint64_t> fuel_;
  bool begin_pending_ = false;
  std::vector<std::uint32_t> results_;  // result count per function
  std::vector<Group> groups_;
};

}  // namespace wavestack::wasm
