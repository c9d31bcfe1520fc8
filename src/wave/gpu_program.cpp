#include "wave/gpu_program.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/error.hpp"
#include "wave/errors.hpp"

namespace wavestack::wave {

GpuDevice::GpuDevice(const runtime::DeviceInfo& info) : context_(info) {}

GlslTarget GpuDevice::target() const {
  const auto& d = context_.device();
  GlslTarget t;
  t.device_name = d.name;
  t.int64 = d.features.int64;
  t.float64 = d.features.float64;
  t.storage_buffer_16bit = d.features.storage_buffer_16bit;
  t.subgroup_basic = d.features.subgroup_basic;
  t.subgroup_arithmetic = d.features.subgroup_arithmetic;
  t.subgroup_ballot = d.features.subgroup_ballot;
  t.subgroup_shuffle = d.features.subgroup_shuffle;
  t.float32_atomic_add = d.features.buffer_float32_atomic_add;
  t.int64_atomics = d.features.int64_atomics && d.features.int64;
  t.float32_denorm_preserve = d.features.float32_denorm_preserve;
  t.float32_inf_nan_preserve = d.features.float32_inf_nan_preserve;
  // Mesa's lavapipe (llvmpipe) ends every loop of an invocation after 65535 back-edges in all.
  const bool llvmpipe =
      d.name.find("llvmpipe") != std::string::npos || d.driver_name.find("llvmpipe") != std::string::npos;
  t.device_loop_limit = llvmpipe ? 65535U : 0U;
  return t;
}

GpuProgram::GpuProgram(std::shared_ptr<GpuDevice> device, Module module, bool bounds_checks)
    : device_(std::move(device)), module_(std::move(module)) {
  GlslTarget target = device_->target();
  target.bounds_checks = bounds_checks;
  shader_ = emit_glsl(module_, target);
  const std::lock_guard lock(device_->mutex());
  status_ = device_->context().allocate(kStatusWords * sizeof(uint32_t));
  device_->context().fill_zero(status_);
}

void GpuProgram::check_launch(std::span<const GpuArgument> arguments, std::array<uint32_t, 3> grid,
                              std::array<uint32_t, 3> workgroup) const {
  using runtime::InvalidArgument;
  const auto& m = module_;
  const auto& device = device_->info();
  if (arguments.size() != m.params.size()) {
    throw InvalidArgument("arguments", "kernel '" + m.name + "' takes " + std::to_string(m.params.size()) +
                                           " arguments, got " + std::to_string(arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (m.params[i].kind != Param::Kind::Buffer) continue;
    const auto* b = arguments[i].buffer;
    const auto& name = m.buffers[m.params[i].index].name;
    if (b == nullptr || !b->buffer.valid()) throw InvalidArgument(name, "expects a device buffer");
    if (b->device.get() != device_.get()) throw InvalidArgument(name, "lives on another device");
    if (b->length > INT32_MAX) throw InvalidArgument(name, "has more than 2^31 - 1 elements");  // len() is i32
  }
  static constexpr const char* kAxes[3] = {"x", "y", "z"};
  uint64_t threads = 1;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0) throw InvalidArgument("grid", "every dimension must be at least 1");
    if (workgroup[d] == 0) throw InvalidArgument("workgroup", "every dimension must be at least 1");
    if (workgroup[d] > device.limits.max_workgroup_size[d]) {
      throw InvalidArgument("workgroup", std::string(kAxes[d]) + " size " + std::to_string(workgroup[d]) +
                                             " exceeds the limit of " + device.name + " (" +
                                             std::to_string(device.limits.max_workgroup_size[d]) + ")");
    }
    if (grid[d] > device.limits.max_workgroup_count[d]) {
      throw InvalidArgument("grid", std::string(kAxes[d]) + " count " + std::to_string(grid[d]) +
                                        " exceeds the limit of " + device.name + " (" +
                                        std::to_string(device.limits.max_workgroup_count[d]) + ")");
    }
    threads *= workgroup[d];
    // thread_id() is an i32: every global id of the launch must fit in one.
    if (static_cast<uint64_t>(grid[d]) * workgroup[d] > (uint64_t{1} << 31)) {
      throw InvalidArgument("grid", "covers " + std::to_string(static_cast<uint64_t>(grid[d]) * workgroup[d]) +
                                        " threads in dimension " + std::to_string(d) +
                                        "; thread_id() is a 32-bit int, so at most 2147483648 are allowed");
    }
  }
  if (threads > device.limits.max_workgroup_invocations) {
    throw InvalidArgument("workgroup", "has " + std::to_string(threads) + " threads; " + device.name + " allows " +
                                           std::to_string(device.limits.max_workgroup_invocations));
  }
  size_t shared = 0;
  for (const auto& s : m.shared) {
    // f16 and CAS-updated f32 shared arrays occupy 4 bytes per element on the device
    shared += static_cast<size_t>(s.count) * (s.element == ScalarType::F16 ? 4 : type_size(s.element));
  }
  if (shared > device.limits.max_shared_memory_bytes) {
    throw InvalidArgument("shared", "kernel '" + m.name + "' uses " + std::to_string(shared) +
                                        " bytes of shared memory; " + device.name + " has " +
                                        std::to_string(device.limits.max_shared_memory_bytes));
  }
}

const runtime::ComputePipeline& GpuProgram::pipeline(std::array<uint32_t, 3> workgroup, bool x_inside) {
  const std::array<uint32_t, 4> key{workgroup[0], workgroup[1], workgroup[2], x_inside ? 1U : 0U};
  auto found = pipelines_.find(key);
  if (found != pipelines_.end()) return found->second;
  runtime::PipelineSpec spec;
  spec.buffer_count = shader_.buffer_count + 1;
  spec.push_constant_bytes = shader_.push_constant_bytes;
  spec.specialization = {{0, workgroup[0]}, {1, workgroup[1]}, {2, workgroup[2]}};
  if (!shader_.x_inside_buffers.empty()) spec.specialization.push_back({3, key[3]});
  spec.shader.target = runtime::vulkan_target_for_api(device_->info().api_version);
  auto created = device_->context().create_pipeline(shader_.source, spec);
  return pipelines_.emplace(key, std::move(created)).first->second;
}

void GpuProgram::launch(std::span<const GpuArgument> arguments, std::array<uint32_t, 3> grid,
                        std::array<uint32_t, 3> workgroup, std::array<uint32_t, 3> limit, uint32_t loop_budget) {
  check_launch(arguments, grid, workgroup);
  const auto& m = module_;
  std::vector<std::byte> push(shader_.push_constant_bytes);
  std::vector<runtime::DeviceBuffer*> bindings(m.buffers.size() + 1, nullptr);
  std::vector<int64_t> lengths(m.buffers.size(), 0);
  for (size_t i = 0; i < arguments.size(); ++i) {
    const auto& p = m.params[i];
    if (p.kind == Param::Kind::Buffer) {
      bindings[p.index] = &arguments[i].buffer->buffer;
      lengths[p.index] = arguments[i].buffer->length;
      const auto length = static_cast<uint32_t>(arguments[i].buffer->length);
      std::memcpy(push.data() + shader_.length_offsets[p.index], &length, 4);
    } else {
      const ScalarType t = m.scalars[p.index].type;
      const Value v = arguments[i].scalar;
      std::byte* at = push.data() + shader_.scalar_offsets[p.index];
      if (t == ScalarType::Bool) {
        const uint32_t word = v.b ? 1U : 0U;
        std::memcpy(at, &word, 4);
      } else {
        std::memcpy(at, &v, type_size(t));
      }
    }
  }
  // Every thread id along x that gets past the launch guard is below x_end; when that is inside
  // each buffer the shader indexes with thread_id(0), those accesses cannot fault (GlslShader).
  const uint64_t x_end = std::min<uint64_t>(limit[0], uint64_t{grid[0]} * workgroup[0]);
  bool x_inside = !shader_.x_inside_buffers.empty();
  for (const uint32_t k : shader_.x_inside_buffers) x_inside = x_inside && x_end <= static_cast<uint64_t>(lengths[k]);
  const uint32_t launch_words[4] = {limit[0], limit[1], limit[2], loop_budget};
  std::memcpy(push.data() + shader_.launch_offset, launch_words, sizeof(launch_words));
  bindings.back() = &status_;
  std::vector<uint32_t> status(kStatusWords, 0);
  {
    const std::lock_guard lock(device_->mutex());
    auto& context = device_->context();
    const auto& created = pipeline(workgroup, x_inside);
    // The status buffer starts zeroed and is cleared again only after a recorded fault,
    // which saves a submission per call.
    if (status_dirty_) context.fill_zero(status_);
    status_dirty_ = false;
    context.dispatch(created, bindings, push, grid);
    context.download(status_, std::as_writable_bytes(std::span(status)));
    status_dirty_ = status[kStatusFlag] != 0;
  }
  if (status[kStatusFlag] != 0) {
    if (static_cast<FaultCode>(status[kStatusCode]) == FaultCode::LoopBudget) {
      throw LaunchTimeout(describe_fault(m, status, lengths) + " on " + device_->info().name);
    }
    throw KernelError(describe_fault(m, status, lengths) + " on " + device_->info().name, status[kStatusLine]);
  }
}

}  // namespace wavestack::wave
