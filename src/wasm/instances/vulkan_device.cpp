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
  return find_or_build_unit(key, source, paged, nullptr, build);
}

void VulkanDevice::build_unit_ahead(const std::string& source, bool paged, const std::function<void(double)>& built) {
  const std::string key = runtime::make_cache_key({"wasmgpu-unit-pipeline", paged ? "paged" : "dense", source});
  PipelineBuild build;
  (void)find_or_build_unit(key, source, paged, &built, build);
}

SharedPipeline VulkanDevice::find_or_build_unit(const std::string& key, const std::string& source, bool paged,
                                                const std::function<void(double)>* ahead, PipelineBuild& build) {
  std::unique_lock lock(units_mutex_);
  while (true) {
    if (auto found = unit_index_.find(key); found != unit_index_.end()) {
      if (ahead != nullptr) return nullptr;
      units_.splice(units_.end(), units_, found->second);  // now the most recently used
      CachedUnit& cached = *found->second;
      build.first_use = !cached.taken;
      cached.taken = true;
      return cached.pipeline;
    }
    if (!units_building_.contains(key)) break;
    if (ahead != nullptr) return nullptr;
    unit_built_.wait(lock);  // another thread builds it
  }
  units_building_.insert(key);
  lock.unlock();
  SharedPipeline pipeline;
  try {
    runtime::PipelineSpec spec = pipeline_spec(paged);
    // glslang's SPIR-V optimizer takes longer than it saves: drivers optimize after inlining
    // anyway (measured on lavapipe; see docs/PERFORMANCE.md).
    spec.shader.optimize = false;
    const auto begin = std::chrono::steady_clock::now();
    pipeline = std::make_shared<const runtime::ComputePipeline>(context.create_pipeline_concurrently(source, spec));
    build.built = true;
    build.spirv_from_cache = pipeline->spirv_from_cache();
    build.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!build.defer_cache_save) context.save_pipeline_cache();
    if (ahead != nullptr) (*ahead)(build.seconds);
  } catch (...) {
    lock.lock();
    units_building_.erase(key);
    unit_built_.notify_all();  // a waiter builds it again and sees the failure itself
    throw;
  }
  lock.lock();
  units_building_.erase(key);
  units_.push_back(CachedUnit{key, pipeline, ahead == nullptr});
  unit_index_[key] = std::prev(units_.end());
  build.first_use = ahead == nullptr;
  if (units_.size() > kUnitPipelineCapacity) {
    unit_index_.erase(units_.front().key);
    units_.pop_front();
  }
  unit_built_.notify_all();
  return pipeline;
}

}  // namespace wavestack::wasm
