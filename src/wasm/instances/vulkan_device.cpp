#include "wasm/instances/vulkan_device.hpp"

#include <chrono>

#include "runtime/disk_cache.hpp"
#include "wasm/device/interpreter_glsl.hpp"

namespace wavestack::wasm {
namespace {

// Specialization constant 1 of every shader: PAGED_MEMORY (interpreter_vulkan_bindings.glsl).
runtime::PipelineSpec pipeline_spec(bool paged = false) {
  runtime::PipelineSpec spec;
  if (paged) spec.specialization.push_back({1, 1});
  spec.buffer_count = 5;
  spec.push_constant_bytes = VulkanDevice::kPushBytes;
  spec.shader.target = runtime::VulkanTarget::Vulkan1_1;  // needs neither shaderInt64 nor shaderFloat64
  return spec;
}

}  // namespace

std::shared_ptr<VulkanDevice> VulkanDevice::shared(const runtime::DeviceInfo& info) {
  static std::mutex registry_mutex;
  static auto* registry = new std::map<std::uint32_t, std::shared_ptr<VulkanDevice>>();
  const std::lock_guard lock(registry_mutex);
  std::shared_ptr<VulkanDevice>& device = (*registry)[info.index];
  if (!device) device = std::make_shared<VulkanDevice>(info);
  return device;
}

runtime::ComputePipeline VulkanDevice::create(std::string_view source, const runtime::PipelineSpec& spec,
                                              PipelineBuild& build) {
  const auto begin = std::chrono::steady_clock::now();
  runtime::ComputePipeline pipeline = context.create_pipeline(source, spec);
  build.built = true;
  build.spirv_from_cache = pipeline.spirv_from_cache();
  build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  // The context lives as long as the process, so its destructor never saves the driver's
  // cache: save it after every build (builds take far longer than the write).
  if (!build.defer_cache_save) context.save_pipeline_cache();
  return pipeline;
}

const runtime::ComputePipeline& VulkanDevice::interpreter(bool paged) {
  PipelineBuild build;
  std::optional<runtime::ComputePipeline>& interpreter = interpreters_[paged ? 1 : 0];
  if (!interpreter) interpreter = create(device::interpreter_shader_source(), pipeline_spec(paged), build);
  return *interpreter;
}

const runtime::ComputePipeline& VulkanDevice::instantiation() {
  PipelineBuild build;
  if (!instantiation_) instantiation_ = create(device::instantiation_shader_source(), pipeline_spec(), build);
  return *instantiation_;
}

const runtime::ComputePipeline& VulkanDevice::wasi_service(std::uint32_t id, bool paged) {
  const std::pair key{id, paged};
  auto found = wasi_.find(key);
  if (found != wasi_.end()) return found->second;
  runtime::PipelineSpec spec = pipeline_spec(paged);
  // The function as a definition of the source rather than a specialization constant: the
  // SPIR-V then holds only its code (a fifth to a tenth of the library), where the driver took
  // the whole library in for every function called (lavapipe: about 4 s each, in every process,
  // since it keeps no pipeline cache) and the SPIR-V of each function is cached on disk.
  spec.shader.defines.emplace_back("WASI_SERVICE_FUNCTION", std::to_string(id));
  PipelineBuild build;
  return wasi_.emplace(key, create(device::wasi_service_shader_source(), spec, build)).first->second;
}

SharedPipeline VulkanDevice::unit(const std::string& source, bool paged, PipelineBuild& build) {
  const std::string key = runtime::make_cache_key({"wasmgpu-unit-pipeline", paged ? "paged" : "dense", source});
  if (auto found = unit_index_.find(key); found != unit_index_.end()) {
    units_.splice(units_.end(), units_, found->second);  // now the most recently used
    return found->second->second;
  }
  runtime::PipelineSpec spec = pipeline_spec(paged);
  // glslang's SPIR-V optimizer takes longer than it saves: drivers optimize after inlining
  // anyway (measured on lavapipe; see docs/PERFORMANCE.md).
  spec.shader.optimize = false;
  auto pipeline = std::make_shared<const runtime::ComputePipeline>(create(source, spec, build));
  units_.emplace_back(key, pipeline);
  unit_index_[key] = std::prev(units_.end());
  if (units_.size() > kUnitPipelineCapacity) {
    unit_index_.erase(units_.front().first);
    units_.pop_front();
  }
  return pipeline;
}

}  // namespace wavestack::wasm
