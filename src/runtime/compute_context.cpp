#include "runtime/compute_context.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "runtime/error.hpp"
#include "runtime/vulkan_api.hpp"
#include "runtime/vulkan_loader.hpp"

namespace wavestack::runtime {
namespace {

void check(VkResult result, const char* call) {
  if (result != VK_SUCCESS) throw VulkanError(call, static_cast<int>(result));
}

double elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

bool has_extension(VkPhysicalDevice physical, const char* name) {
  uint32_t count = 0;
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
  std::vector<VkExtensionProperties> extensions(count);
  vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, extensions.data());
  return std::any_of(extensions.begin(), extensions.end(),
                     [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Shared device state. Buffers and pipelines keep a pointer to it; the context outlives them
// by contract (it is the owner the bindings keep alive).

struct ComputeContext::State {
  DeviceInfo info;
  DiskCache cache;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VolkDeviceTable vk{};
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t queue_family = 0;
  VkPhysicalDeviceMemoryProperties memory{};
  VkCommandPool command_pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
  std::string pipeline_cache_key;
  // A host-visible buffer reused for transfers to and from device-only memory.
  DeviceBuffer staging;
  PhaseTimings timings;

  ~State();
  uint32_t find_memory_type(uint32_t allowed, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;
  DeviceBuffer make_buffer(size_t bytes, VkBufferUsageFlags usage, bool host_visible);
  void submit_and_wait(const std::function<void(VkCommandBuffer)>& record);
  DeviceBuffer& staging_of_size(size_t bytes);
  void save_pipeline_cache();
};

struct DeviceBuffer::Handle {
  ComputeContext::State* owner = nullptr;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  void* mapped = nullptr;  // non-null when the memory is host visible and coherent
};

struct ComputePipeline::Handle {
  ComputeContext::State* owner = nullptr;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
};

// ---------------------------------------------------------------------------------------
// DeviceBuffer and ComputePipeline ownership.

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  release();
}

void DeviceBuffer::release() noexcept {
  if (handle_ == nullptr) return;
  const auto& vk = handle_->owner->vk;
  VkDevice device = handle_->owner->device;
  if (handle_->mapped != nullptr) vk.vkUnmapMemory(device, handle_->memory);
  vk.vkDestroyBuffer(device, handle_->buffer, nullptr);
  vk.vkFreeMemory(device, handle_->memory, nullptr);
  delete handle_;
  handle_ = nullptr;
  size_ = 0;
}

ComputePipeline::ComputePipeline(ComputePipeline&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      buffer_count_(other.buffer_count_),
      push_constant_bytes_(other.push_constant_bytes_),
      spirv_from_cache_(other.spirv_from_cache_) {}

ComputePipeline& ComputePipeline::operator=(ComputePipeline&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = std::exchange(other.handle_, nullptr);
    buffer_count_ = other.buffer_count_;
    push_constant_bytes_ = other.push_constant_bytes_;
    spirv_from_cache_ = other.spirv_from_cache_;
  }
  return *this;
}

ComputePipeline::~ComputePipeline() {
  release();
}

void ComputePipeline::release() noexcept {
  if (handle_ == nullptr) return;
  const auto& vk = handle_->owner->vk;
  VkDevice device = handle_->owner->device;
  vk.vkDestroyPipeline(device, handle_->pipeline, nullptr);
  vk.vkDestroyDescriptorPool(device, handle_->pool, nullptr);
  vk.vkDestroyPipelineLayout(device, handle_->layout, nullptr);
  vk.vkDestroyDescriptorSetLayout(device, handle_->set_layout, nullptr);
  delete handle_;
  handle_ = nullptr;
}

// ---------------------------------------------------------------------------------------
// State helpers.

ComputeContext::State::~State() {
  if (device == VK_NULL_HANDLE) return;
  vk.vkDeviceWaitIdle(device);
  staging = DeviceBuffer();
  save_pipeline_cache();
  if (pipeline_cache != VK_NULL_HANDLE) vk.vkDestroyPipelineCache(device, pipeline_cache, nullptr);
  if (fence != VK_NULL_HANDLE) vk.vkDestroyFence(device, fence, nullptr);
  if (command_pool != VK_NULL_HANDLE) vk.vkDestroyCommandPool(device, command_pool, nullptr);
  vk.vkDestroyDevice(device, nullptr);
}

uint32_t ComputeContext::State::find_memory_type(uint32_t allowed, VkMemoryPropertyFlags required,
                                                 VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((allowed & (1U << i)) == 0) continue;
    const VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

DeviceBuffer ComputeContext::State::make_buffer(size_t bytes, VkBufferUsageFlags usage, bool host_visible) {
  if (bytes == 0) throw InvalidArgument("bytes", "a device buffer must hold at least one byte");
  if (bytes > info.limits.max_buffer_size) {
    throw InvalidArgument("bytes", std::to_string(bytes) + " bytes exceed the device's largest buffer (" +
                                       std::to_string(info.limits.max_buffer_size) + " bytes)");
  }
  auto handle = std::make_unique<DeviceBuffer::Handle>();
  handle->owner = this;
  VkBufferCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  create.size = bytes;
  create.usage = usage;
  create.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vk.vkCreateBuffer(device, &create, nullptr, &handle->buffer), "vkCreateBuffer");

  VkMemoryRequirements requirements{};
  vk.vkGetBufferMemoryRequirements(device, handle->buffer, &requirements);
  const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = host_visible ? find_memory_type(requirements.memoryTypeBits, host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT)
                               : find_memory_type(requirements.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (type == UINT32_MAX) type = find_memory_type(requirements.memoryTypeBits, 0, 0);
  VkMemoryAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex = type;
  VkResult result = vk.vkAllocateMemory(device, &allocate, nullptr, &handle->memory);
  if (result != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, handle->buffer, nullptr);
    check(result, "vkAllocateMemory");
  }
  result = vk.vkBindBufferMemory(device, handle->buffer, handle->memory, 0);
  const VkMemoryPropertyFlags flags = memory.memoryTypes[type].propertyFlags;
  if (result == VK_SUCCESS && (flags & host) == host) {
    result = vk.vkMapMemory(device, handle->memory, 0, VK_WHOLE_SIZE, 0, &handle->mapped);
  }
  if (result != VK_SUCCESS) {
    vk.vkDestroyBuffer(device, handle->buffer, nullptr);
    vk.vkFreeMemory(device, handle->memory, nullptr);
    check(result, "vkBindBufferMemory/vkMapMemory");
  }
  DeviceBuffer buffer;
  buffer.handle_ = handle.release();
  buffer.size_ = bytes;
  return buffer;
}

void ComputeContext::State::submit_and_wait(const std::function<void(VkCommandBuffer)>& record) {
  check(vk.vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(vk.vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer");
  // Work of earlier submissions (and host writes) becomes visible to this one's transfers
  // and shaders, and this one's writes become visible to the host once the fence signals.
  const VkAccessFlags device_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  const VkPipelineStageFlags device_stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
  VkMemoryBarrier before{};
  before.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
  before.dstAccessMask = device_access;
  vk.vkCmdPipelineBarrier(commands, device_stages | VK_PIPELINE_STAGE_HOST_BIT, device_stages, 0, 1, &before, 0,
                          nullptr, 0, nullptr);
  record(commands);
  VkMemoryBarrier after{};
  after.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  after.dstAccessMask = VK_ACCESS_HOST_READ_BIT | device_access;
  vk.vkCmdPipelineBarrier(commands, device_stages, device_stages | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr,
                          0, nullptr);
  check(vk.vkEndCommandBuffer(commands), "vkEndCommandBuffer");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &commands;
  check(vk.vkResetFences(device, 1, &fence), "vkResetFences");
  check(vk.vkQueueSubmit(queue, 1, &submit, fence), "vkQueueSubmit");
  ++timings.submits;
  check(vk.vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  ++timings.fence_waits;
}

DeviceBuffer& ComputeContext::State::staging_of_size(size_t bytes) {
  if (staging.size() < bytes) {
    staging = DeviceBuffer();
    // Grow geometrically so a sequence of slightly larger transfers does not reallocate each time.
    staging = make_buffer(std::max(bytes, staging.size() * 2),
                          VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
  }
  return staging;
}

void ComputeContext::State::save_pipeline_cache() {
  if (pipeline_cache == VK_NULL_HANDLE || !cache.enabled()) return;
  size_t size = 0;
  if (vk.vkGetPipelineCacheData(device, pipeline_cache, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<std::byte> data(size);
  if (vk.vkGetPipelineCacheData(device, pipeline_cache, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  cache.store("pipeline-cache", pipeline_cache_key, data);
}

// ---------------------------------------------------------------------------------------
// ComputeContext.

ComputeContext::ComputeContext(const DeviceInfo& device, DiskCache cache) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.info = device;
  s.cache = std::move(cache);
  if (!vulkan_availability().available) throw DeviceError("Vulkan is unavailable: " + vulkan_availability().reason);

  uint32_t count = 0;
  check(vkEnumeratePhysicalDevices(vulkan_instance(), &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> physical(count);
  check(vkEnumeratePhysicalDevices(vulkan_instance(), &count, physical.data()), "vkEnumeratePhysicalDevices");
  if (device.index >= count) throw DeviceError("device " + std::to_string(device.index) + " no longer exists");
  s.physical = physical[device.index];
  vkGetPhysicalDeviceMemoryProperties(s.physical, &s.memory);

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(s.physical, &family_count, families.data());
  // Prefer a compute queue without graphics: on discrete GPUs it is the async-compute engine.
  uint32_t chosen = UINT32_MAX;
  for (uint32_t i = 0; i < family_count; ++i) {
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0) continue;
    if (chosen == UINT32_MAX || (families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) == 0) chosen = i;
  }
  if (chosen == UINT32_MAX) throw DeviceError(device.name + " has no compute queue");
  s.queue_family = chosen;

  // Enable every optional capability the device has and the code generators may use.
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.features.shaderInt64 = device.features.int64 ? VK_TRUE : VK_FALSE;
  features.features.shaderFloat64 = device.features.float64 ? VK_TRUE : VK_FALSE;
  features.features.shaderInt16 = device.features.int16 ? VK_TRUE : VK_FALSE;
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  storage16.storageBuffer16BitAccess = device.features.storage_buffer_16bit ? VK_TRUE : VK_FALSE;
  features.pNext = &storage16;
  std::vector<const char*> extensions;
  VkPhysicalDeviceShaderFloat16Int8Features float16{};
  float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  if (device.features.float16_arithmetic) {
    float16.shaderFloat16 = VK_TRUE;
    float16.pNext = features.pNext;
    features.pNext = &float16;
    if (device.api_version < VK_API_VERSION_1_2) extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{};
  atomic_float.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  if (device.features.buffer_float32_atomic_add &&
      has_extension(s.physical, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    atomic_float.shaderBufferFloat32AtomicAdd = VK_TRUE;
    atomic_float.shaderSharedFloat32AtomicAdd = VK_TRUE;
    atomic_float.pNext = features.pNext;
    features.pNext = &atomic_float;
    extensions.push_back(VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
  }
  VkPhysicalDeviceShaderAtomicInt64Features atomic_int64{};
  atomic_int64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  if (device.features.int64_atomics) {
    atomic_int64.shaderBufferInt64Atomics = VK_TRUE;
    atomic_int64.shaderSharedInt64Atomics = VK_TRUE;
    atomic_int64.pNext = features.pNext;
    features.pNext = &atomic_int64;
    if (device.api_version < VK_API_VERSION_1_2) extensions.push_back(VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME);
  }
  // Float controls are core in Vulkan 1.2; before that a shader may use them only with the
  // extension enabled (the features above are properties: nothing to switch on).
  const bool float_controls = device.features.float32_denorm_preserve || device.features.float32_inf_nan_preserve;
  if (float_controls && device.api_version < VK_API_VERSION_1_2) {
    extensions.push_back(VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME);
  }
  // MoltenVK requires the portability subset extension to be enabled when it is offered.
  if (has_extension(s.physical, "VK_KHR_portability_subset")) extensions.push_back("VK_KHR_portability_subset");

  const float priority = 1.0F;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = s.queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create.pNext = &features;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  check(vkCreateDevice(s.physical, &create, nullptr, &s.device), "vkCreateDevice");
  // A per-device table: volk's global device functions would be shared by every context.
  volkLoadDeviceTable(&s.vk, s.device);
  s.vk.vkGetDeviceQueue(s.device, s.queue_family, 0, &s.queue);

  VkCommandPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = s.queue_family;
  check(s.vk.vkCreateCommandPool(s.device, &pool, nullptr, &s.command_pool), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = s.command_pool;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  check(s.vk.vkAllocateCommandBuffers(s.device, &allocate, &s.commands), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fence{};
  fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(s.vk.vkCreateFence(s.device, &fence, nullptr, &s.fence), "vkCreateFence");

  // The driver's own pipeline cache, persisted beside the SPIR-V cache.
  s.pipeline_cache_key = make_cache_key({"pipeline-cache", device.cache_identity()});
  const auto saved = s.cache.load("pipeline-cache", s.pipeline_cache_key);
  VkPipelineCacheCreateInfo cache_info{};
  cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  if (saved) {
    cache_info.initialDataSize = saved->size();
    cache_info.pInitialData = saved->data();
  }
  if (s.vk.vkCreatePipelineCache(s.device, &cache_info, nullptr, &s.pipeline_cache) != VK_SUCCESS) {
    // A cache the driver rejects is dropped rather than failing the context.
    cache_info.initialDataSize = 0;
    cache_info.pInitialData = nullptr;
    check(s.vk.vkCreatePipelineCache(s.device, &cache_info, nullptr, &s.pipeline_cache), "vkCreatePipelineCache");
  }
}

ComputeContext::~ComputeContext() = default;

const DeviceInfo& ComputeContext::device() const noexcept {
  return state_->info;
}

void ComputeContext::save_pipeline_cache() {
  state_->save_pipeline_cache();
}

const DiskCache& ComputeContext::cache() const noexcept {
  return state_->cache;
}
const PhaseTimings& ComputeContext::timings() const noexcept {
  return state_->timings;
}
void ComputeContext::reset_timings() noexcept {
  state_->timings = PhaseTimings{};
}

DeviceBuffer ComputeContext::allocate(size_t bytes) {
  return state_->make_buffer(
      bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      false);
}

void ComputeContext::upload(DeviceBuffer& buffer, std::span<const std::byte> data, size_t offset) {
  if (!buffer.valid()) throw InvalidArgument("buffer", "is empty or was moved from");
  if (offset > buffer.size() || data.size() > buffer.size() - offset) {
    throw InvalidArgument("data", std::to_string(data.size()) + " bytes at offset " + std::to_string(offset) +
                                      " do not fit a buffer of " + std::to_string(buffer.size()) + " bytes");
  }
  if (data.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  State& s = *state_;
  if (buffer.handle_->mapped != nullptr) {
    std::memcpy(static_cast<std::byte*>(buffer.handle_->mapped) + offset, data.data(), data.size());
  } else {
    DeviceBuffer& staging = s.staging_of_size(data.size());
    std::memcpy(staging.handle_->mapped, data.data(), data.size());
    s.submit_and_wait([&](VkCommandBuffer cmd) {
      VkBufferCopy region{0, offset, data.size()};
      s.vk.vkCmdCopyBuffer(cmd, staging.handle_->buffer, buffer.handle_->buffer, 1, &region);
    });
  }
  s.timings.upload_ms += elapsed_ms(start);
  s.timings.bytes_uploaded += data.size();
}

void ComputeContext::download(const DeviceBuffer& buffer, std::span<std::byte> data, size_t offset) {
  if (!buffer.valid()) throw InvalidArgument("buffer", "is empty or was moved from");
  if (offset > buffer.size() || data.size() > buffer.size() - offset) {
    throw InvalidArgument("data", std::to_string(data.size()) + " bytes at offset " + std::to_string(offset) +
                                      " do not fit a buffer of " + std::to_string(buffer.size()) + " bytes");
  }
  if (data.empty()) return;
  const auto start = std::chrono::steady_clock::now();
  State& s = *state_;
  if (buffer.handle_->mapped != nullptr) {
    std::memcpy(data.data(), static_cast<const std::byte*>(buffer.handle_->mapped) + offset, data.size());
  } else {
    DeviceBuffer& staging = s.staging_of_size(data.size());
    s.submit_and_wait([&](VkCommandBuffer cmd) {
      VkBufferCopy region{offset, 0, data.size()};
      s.vk.vkCmdCopyBuffer(cmd, buffer.handle_->buffer, staging.handle_->buffer, 1, &region);
    });
    std::memcpy(data.data(), staging.handle_->mapped, data.size());
  }
  s.timings.download_ms += elapsed_ms(start);
  s.timings.bytes_downloaded += data.size();
}

void ComputeContext::fill_zero(DeviceBuffer& buffer) {
  if (!buffer.valid()) throw InvalidArgument("buffer", "is empty or was moved from");
  const auto start = std::chrono::steady_clock::now();
  State& s = *state_;
  s.submit_and_wait(
      [&](VkCommandBuffer cmd) { s.vk.vkCmdFillBuffer(cmd, buffer.handle_->buffer, 0, VK_WHOLE_SIZE, 0); });
  s.timings.upload_ms += elapsed_ms(start);
}

ComputePipeline ComputeContext::create_pipeline(std::string_view glsl, const PipelineSpec& spec) {
  State& s = *state_;
  const auto start = std::chrono::steady_clock::now();
  ComputePipeline pipeline = create_pipeline_concurrently(glsl, spec);
  if (!pipeline.spirv_from_cache()) s.save_pipeline_cache();
  s.timings.compile_ms += elapsed_ms(start);
  s.timings.spirv_from_cache = pipeline.spirv_from_cache();
  return pipeline;
}

ComputePipeline ComputeContext::create_pipeline_concurrently(std::string_view glsl, const PipelineSpec& spec) {
  State& s = *state_;
  if (spec.push_constant_bytes % 4 != 0) {
    throw InvalidArgument("push_constant_bytes",
                          "must be a multiple of 4, got " + std::to_string(spec.push_constant_bytes));
  }
  if (spec.push_constant_bytes > s.info.limits.max_push_constants_bytes) {
    throw InvalidArgument("push_constant_bytes", std::to_string(spec.push_constant_bytes) +
                                                     " bytes exceed the device limit of " +
                                                     std::to_string(s.info.limits.max_push_constants_bytes));
  }
  const ShaderBinary binary = compile_compute_shader(glsl, spec.shader, s.cache, s.info.cache_identity());

  auto handle = std::make_unique<ComputePipeline::Handle>();
  handle->owner = &s;
  ComputePipeline pipeline;
  // Attach early so every Vulkan object created below is released if a later step throws.
  pipeline.handle_ = handle.release();
  pipeline.buffer_count_ = spec.buffer_count;
  pipeline.push_constant_bytes_ = spec.push_constant_bytes;
  pipeline.spirv_from_cache_ = binary.from_cache;
  ComputePipeline::Handle& h = *pipeline.handle_;

  std::vector<VkDescriptorSetLayoutBinding> bindings(spec.buffer_count);
  for (uint32_t i = 0; i < spec.buffer_count; ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_layout{};
  set_layout.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_layout.bindingCount = spec.buffer_count;
  set_layout.pBindings = bindings.data();
  check(s.vk.vkCreateDescriptorSetLayout(s.device, &set_layout, nullptr, &h.set_layout), "vkCreateDescriptorSetLayout");

  VkPushConstantRange push{};
  push.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  push.size = spec.push_constant_bytes;
  VkPipelineLayoutCreateInfo layout{};
  layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &h.set_layout;
  layout.pushConstantRangeCount = spec.push_constant_bytes > 0 ? 1 : 0;
  layout.pPushConstantRanges = &push;
  check(s.vk.vkCreatePipelineLayout(s.device, &layout, nullptr, &h.layout), "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo module_info{};
  module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module_info.codeSize = binary.words.size() * sizeof(uint32_t);
  module_info.pCode = binary.words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  check(s.vk.vkCreateShaderModule(s.device, &module_info, nullptr, &module), "vkCreateShaderModule");

  std::vector<VkSpecializationMapEntry> entries;
  std::vector<uint32_t> values;
  for (const SpecializationConstant& constant : spec.specialization) {
    entries.push_back({constant.id, static_cast<uint32_t>(values.size() * 4), 4});
    values.push_back(constant.value);
  }
  VkSpecializationInfo specialization{};
  specialization.mapEntryCount = static_cast<uint32_t>(entries.size());
  specialization.pMapEntries = entries.data();
  specialization.dataSize = values.size() * 4;
  specialization.pData = values.data();

  VkComputePipelineCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  create.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  create.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  create.stage.module = module;
  create.stage.pName = "main";
  create.stage.pSpecializationInfo = entries.empty() ? nullptr : &specialization;
  create.layout = h.layout;
  const VkResult result = s.vk.vkCreateComputePipelines(s.device, s.pipeline_cache, 1, &create, nullptr, &h.pipeline);
  s.vk.vkDestroyShaderModule(s.device, module, nullptr);
  check(result, "vkCreateComputePipelines");

  // One set per pipeline is enough because dispatch waits for completion before returning.
  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(1U, spec.buffer_count)};
  VkDescriptorPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool.maxSets = 1;
  pool.poolSizeCount = 1;
  pool.pPoolSizes = &pool_size;
  check(s.vk.vkCreateDescriptorPool(s.device, &pool, nullptr, &h.pool), "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo allocate{};
  allocate.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  allocate.descriptorPool = h.pool;
  allocate.descriptorSetCount = 1;
  allocate.pSetLayouts = &h.set_layout;
  check(s.vk.vkAllocateDescriptorSets(s.device, &allocate, &h.set), "vkAllocateDescriptorSets");
  return pipeline;
}

// Checks a dispatch's arguments against the pipeline and the device and points the pipeline's
// descriptor set at `buffers`; false for an empty launch (nothing to run).
bool ComputeContext::bind(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers, size_t push_bytes,
                          std::array<uint32_t, 3> groups) {
  State& s = *state_;
  if (pipeline.handle_ == nullptr || pipeline.handle_->owner != &s) {
    throw InvalidArgument("pipeline", "was not created by this context");
  }
  if (buffers.size() != pipeline.buffer_count()) {
    throw InvalidArgument("buffers", "the pipeline binds " + std::to_string(pipeline.buffer_count()) +
                                         " buffers, got " + std::to_string(buffers.size()));
  }
  if (push_bytes != pipeline.push_constant_bytes()) {
    throw InvalidArgument("push_constants", "the pipeline takes " + std::to_string(pipeline.push_constant_bytes()) +
                                                " bytes, got " + std::to_string(push_bytes));
  }
  static constexpr const char* kAxes[3] = {"x", "y", "z"};
  for (int axis = 0; axis < 3; ++axis) {
    if (groups[axis] > s.info.limits.max_workgroup_count[axis]) {
      throw InvalidArgument(std::string("groups.") + kAxes[axis],
                            std::to_string(groups[axis]) + " workgroups exceed the device limit of " +
                                std::to_string(s.info.limits.max_workgroup_count[axis]));
    }
  }
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i] == nullptr || !buffers[i]->valid() || buffers[i]->handle_->owner != &s) {
      throw InvalidArgument("buffers[" + std::to_string(i) + "]", "is not a live buffer of this context");
    }
    infos[i] = {buffers[i]->handle_->buffer, 0, VK_WHOLE_SIZE};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = pipeline.handle_->set;
    writes[i].dstBinding = static_cast<uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  if (groups[0] == 0 || groups[1] == 0 || groups[2] == 0) return false;  // an empty launch does nothing
  s.vk.vkUpdateDescriptorSets(s.device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return true;
}

void ComputeContext::dispatch(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers,
                              std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups) {
  State& s = *state_;
  if (!bind(pipeline, buffers, push_constants.size(), groups)) return;
  const auto start = std::chrono::steady_clock::now();
  const ComputePipeline::Handle& h = *pipeline.handle_;
  s.submit_and_wait([&](VkCommandBuffer cmd) {
    s.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, h.pipeline);
    s.vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, h.layout, 0, 1, &h.set, 0, nullptr);
    if (!push_constants.empty()) {
      s.vk.vkCmdPushConstants(cmd, h.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              static_cast<uint32_t>(push_constants.size()), push_constants.data());
    }
    s.vk.vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
  });
  s.timings.dispatch_ms += elapsed_ms(start);
}

namespace {

void check_slice(const char* name, const BufferSlice& slice) {
  if (slice.buffer == nullptr) return;
  if (!slice.buffer->valid()) throw InvalidArgument(name, "is empty or was moved from");
  if (slice.offset % 4 != 0 || slice.bytes % 4 != 0 || slice.bytes == 0 || slice.offset > slice.buffer->size() ||
      slice.bytes > slice.buffer->size() - slice.offset) {
    throw InvalidArgument(name, std::to_string(slice.bytes) + " bytes at offset " + std::to_string(slice.offset) +
                                    " are not a non-empty, 4-byte aligned range of a buffer of " +
                                    std::to_string(slice.buffer->size()) + " bytes");
  }
}

}  // namespace

void ComputeContext::dispatch_sequence(const ComputePipeline& pipeline, std::span<DeviceBuffer* const> buffers,
                                       std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups,
                                       uint32_t count, BufferSlice clear, BufferSlice read, std::span<std::byte> out) {
  if (count == 0) throw InvalidArgument("count", "a sequence holds at least one dispatch");
  const std::vector<const ComputePipeline*> pipelines(count, &pipeline);
  dispatch_sequence(pipelines, buffers, push_constants, groups, clear, read, out);
}

void ComputeContext::dispatch_sequence(std::span<const ComputePipeline* const> pipelines,
                                       std::span<DeviceBuffer* const> buffers,
                                       std::span<const std::byte> push_constants, std::array<uint32_t, 3> groups,
                                       BufferSlice clear, BufferSlice read, std::span<std::byte> out) {
  State& s = *state_;
  const auto count = static_cast<uint32_t>(pipelines.size());
  if (count == 0) throw InvalidArgument("pipelines", "a sequence holds at least one dispatch");
  for (const ComputePipeline* pipeline : pipelines) {
    if (pipeline == nullptr) throw InvalidArgument("pipelines", "holds a null pipeline");
  }
  if (push_constants.size() % count != 0) {
    throw InvalidArgument("push_constants", std::to_string(push_constants.size()) + " bytes are not " +
                                                std::to_string(count) + " equal blocks");
  }
  check_slice("clear", clear);
  check_slice("read", read);
  if (read.buffer != nullptr && out.size() != read.bytes) {
    throw InvalidArgument(
        "out", "holds " + std::to_string(out.size()) + " bytes, the read range " + std::to_string(read.bytes));
  }
  for (const BufferSlice* slice : {&clear, &read}) {
    if (slice->buffer != nullptr && slice->buffer->handle_->owner != &s) {
      throw InvalidArgument(slice == &clear ? "clear" : "read", "is not a buffer of this context");
    }
  }
  const size_t block = push_constants.size() / count;
  for (uint32_t i = 0; i < count; ++i) {
    if (i != 0 && pipelines[i] == pipelines[i - 1]) continue;
    if (!bind(*pipelines[i], buffers, block, groups)) return;
  }
  // A buffer the host cannot map is read through the staging buffer, copied in the same submission.
  DeviceBuffer* staging = nullptr;
  if (read.buffer != nullptr && read.buffer->handle_->mapped == nullptr) staging = &s.staging_of_size(read.bytes);
  const auto start = std::chrono::steady_clock::now();
  // Each command's writes visible to the next (submit_and_wait orders the submission as a whole).
  const auto barrier = [&](VkCommandBuffer cmd) {
    VkMemoryBarrier between{};
    between.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    between.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    between.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                            VK_ACCESS_TRANSFER_WRITE_BIT;
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    s.vk.vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &between, 0, nullptr, 0, nullptr);
  };
  s.submit_and_wait([&](VkCommandBuffer cmd) {
    if (clear.buffer != nullptr) {
      s.vk.vkCmdFillBuffer(cmd, clear.buffer->handle_->buffer, clear.offset, clear.bytes, 0);
      barrier(cmd);
    }
    for (uint32_t i = 0; i < count; ++i) {
      if (i != 0) barrier(cmd);
      const ComputePipeline::Handle& h = *pipelines[i]->handle_;
      if (i == 0 || pipelines[i] != pipelines[i - 1]) {
        s.vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, h.pipeline);
        s.vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, h.layout, 0, 1, &h.set, 0, nullptr);
      }
      if (block != 0) {
        s.vk.vkCmdPushConstants(cmd, h.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(block),
                                push_constants.data() + i * block);
      }
      s.vk.vkCmdDispatch(cmd, groups[0], groups[1], groups[2]);
    }
    if (staging != nullptr) {
      barrier(cmd);
      VkBufferCopy region{read.offset, 0, read.bytes};
      s.vk.vkCmdCopyBuffer(cmd, read.buffer->handle_->buffer, staging->handle_->buffer, 1, &region);
    }
  });
  if (read.buffer != nullptr) {
    const auto* from = staging != nullptr ? static_cast<const std::byte*>(staging->handle_->mapped)
                                          : static_cast<const std::byte*>(read.buffer->handle_->mapped) + read.offset;
    std::memcpy(out.data(), from, read.bytes);
    s.timings.bytes_downloaded += read.bytes;
  }
  s.timings.dispatch_ms += elapsed_ms(start);
}

}  // namespace wavestack::runtime
