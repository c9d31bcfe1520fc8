// A WAVE kernel on a Vulkan device: the GLSL emitted for that device, one pipeline per
// workgroup shape (the shape is a specialisation constant, so the SPIR-V is shared), the
// status buffer that carries faults back, and the launch checks against the device limits.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "runtime/compute_context.hpp"
#include "wave/glsl_emitter.hpp"

namespace wavestack::wave {

// One open Vulkan device for wave kernels, shared by its programs and buffers.
class GpuDevice {
 public:
  explicit GpuDevice(const runtime::DeviceInfo& info);

  [[nodiscard]] const runtime::DeviceInfo& info() const noexcept { return context_.device(); }
  [[nodiscard]] runtime::ComputeContext& context() noexcept { return context_; }
  [[nodiscard]] GlslTarget target() const;
  // Serialises use of the context (its command buffer and staging memory are single-user).
  [[nodiscard]] std::mutex& mutex() noexcept { return mutex_; }

 private:
  runtime::ComputeContext context_;
  std::mutex mutex_;
};

// A device buffer with the element count the kernel sees (a zero-length array still binds a
// small buffer, because Vulkan has no empty buffers).
struct GpuBuffer {
  std::shared_ptr<GpuDevice> device;
  runtime::DeviceBuffer buffer;
  int64_t length = 0;
};

struct GpuArgument {
  GpuBuffer* buffer = nullptr;  // for buffer parameters
  Value scalar{};               // for scalar parameters, read through the declared type
};

class GpuProgram {
 public:
  // Emits the shader; throws runtime::DeviceError naming a feature the device lacks.
  GpuProgram(std::shared_ptr<GpuDevice> device, Module module, bool bounds_checks = true);

  [[nodiscard]] const Module& module() const noexcept { return module_; }
  [[nodiscard]] const GlslShader& shader() const noexcept { return shader_; }
  [[nodiscard]] const std::shared_ptr<GpuDevice>& device() const noexcept { return device_; }

  // Checks the arguments and the launch against the device limits (InvalidArgument naming
  // the culprit) before anything runs, dispatches and waits; a recorded fault becomes a
  // KernelError. Buffers stay on the device. Invocations with a global id at or past `limit`
  // return at once; one that runs more than `loop_budget` loop back-edges stops, and the
  // launch throws LaunchTimeout.
  void launch(std::span<const GpuArgument> arguments, std::array<uint32_t, 3> grid, std::array<uint32_t, 3> workgroup,
              std::array<uint32_t, 3> limit = {UINT32_MAX, UINT32_MAX, UINT32_MAX}, uint32_t loop_budget = UINT32_MAX);

 private:
  // One pipeline per workgroup shape and value of wave_x_inside (GlslShader::x_inside_buffers).
  const runtime::ComputePipeline& pipeline(std::array<uint32_t, 3> workgroup, bool x_inside);
  void check_launch(std::span<const GpuArgument> arguments, std::array<uint32_t, 3> grid,
                    std::array<uint32_t, 3> workgroup) const;

  std::shared_ptr<GpuDevice> device_;
  Module module_;
  GlslShader shader_;
  runtime::DeviceBuffer status_;
  bool status_dirty_ = false;  // a fault was recorded and not cleared yet
  std::map<std::array<uint32_t, 4>, runtime::ComputePipeline> pipelines_;
};

}  // namespace wavestack::wave
