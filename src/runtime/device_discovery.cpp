#include "runtime/device_discovery.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>

#include "runtime/vulkan_loader.hpp"

namespace wavestack::runtime {
namespace {

DeviceType to_device_type(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceType::IntegratedGpu;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceType::DiscreteGpu;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceType::VirtualGpu;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceType::Cpu;
    default:
      return DeviceType::Other;
  }
}

std::vector<std::string> device_extensions(VkPhysicalDevice physical) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkExtensionProperties> properties(count);
  if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, properties.data()) != VK_SUCCESS) return {};
  std::vector<std::string> names;
  names.reserve(count);
  for (const auto& property : properties) names.emplace_back(property.extensionName);
  return names;
}

bool contains(const std::vector<std::string>& names, std::string_view wanted) {
  return std::find(names.begin(), names.end(), wanted) != names.end();
}

std::string hex(const uint8_t* bytes, size_t count) {
  std::string text;
  char digits[3];
  for (size_t i = 0; i < count; ++i) {
    std::snprintf(digits, sizeof digits, "%02x", bytes[i]);
    text += digits;
  }
  return text;
}

DeviceInfo describe(VkPhysicalDevice physical, uint32_t index) {
  const std::vector<std::string> extensions = device_extensions(physical);
  VkPhysicalDeviceProperties basic{};
  vkGetPhysicalDeviceProperties(physical, &basic);
  const uint32_t api = basic.apiVersion;

  // Extension structs are chained only when the device supports them, as the spec requires.
  VkPhysicalDeviceProperties2 properties{};
  properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  properties.pNext = &subgroup;
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  const bool has_driver = api >= VK_API_VERSION_1_2 || contains(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (has_driver) {
    driver.pNext = properties.pNext;
    properties.pNext = &driver;
  }
  VkPhysicalDeviceMaintenance4Properties maintenance4{};
  maintenance4.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES;
  const bool has_maintenance4 = api >= VK_API_VERSION_1_3 || contains(extensions, VK_KHR_MAINTENANCE_4_EXTENSION_NAME);
  if (has_maintenance4) {
    maintenance4.pNext = properties.pNext;
    properties.pNext = &maintenance4;
  }
  VkPhysicalDeviceFloatControlsProperties float_controls{};
  float_controls.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
  const bool has_float_controls =
      api >= VK_API_VERSION_1_2 || contains(extensions, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME);
  if (has_float_controls) {
    float_controls.pNext = properties.pNext;
    properties.pNext = &float_controls;
  }
  vkGetPhysicalDeviceProperties2(physical, &properties);

  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  VkPhysicalDevice16BitStorageFeatures storage16{};
  storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
  features.pNext = &storage16;
  VkPhysicalDeviceShaderFloat16Int8Features float16{};
  float16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
  if (api >= VK_API_VERSION_1_2 || contains(extensions, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
    float16.pNext = features.pNext;
    features.pNext = &float16;
  }
  VkPhysicalDeviceShaderAtomicFloatFeaturesEXT atomic_float{};
  atomic_float.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT;
  if (contains(extensions, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME)) {
    atomic_float.pNext = features.pNext;
    features.pNext = &atomic_float;
  }
  VkPhysicalDeviceShaderAtomicInt64Features atomic_int64{};
  atomic_int64.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES;
  if (api >= VK_API_VERSION_1_2 || contains(extensions, VK_KHR_SHADER_ATOMIC_INT64_EXTENSION_NAME)) {
    atomic_int64.pNext = features.pNext;
    features.pNext = &atomic_int64;
  }
  vkGetPhysicalDeviceFeatures2(physical, &features);

  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(physical, &memory);

  DeviceInfo info;
  info.index = index;
  info.vendor_id = basic.vendorID;
  info.vendor = vendor_name(basic.vendorID);
  info.device_id = basic.deviceID;
  info.name = basic.deviceName;
  info.type = to_device_type(basic.deviceType);
  info.is_software = basic.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ||
                     (has_driver && (driver.driverID == VK_DRIVER_ID_MESA_LLVMPIPE ||
                                     driver.driverID == VK_DRIVER_ID_GOOGLE_SWIFTSHADER));
  info.subgroup_size = subgroup.subgroupSize;
  info.api_version = api;
  info.driver_version = basic.driverVersion;
  if (has_driver) {
    info.driver_name = driver.driverName;
    info.driver_info = driver.driverInfo;
  }
  info.pipeline_cache_uuid = hex(basic.pipelineCacheUUID, VK_UUID_SIZE);

  const VkPhysicalDeviceLimits& limits = basic.limits;
  for (int axis = 0; axis < 3; ++axis) {
    info.limits.max_workgroup_size[axis] = limits.maxComputeWorkGroupSize[axis];
    info.limits.max_workgroup_count[axis] = limits.maxComputeWorkGroupCount[axis];
  }
  info.limits.max_workgroup_invocations = limits.maxComputeWorkGroupInvocations;
  info.limits.max_shared_memory_bytes = limits.maxComputeSharedMemorySize;
  info.limits.max_storage_buffer_range = limits.maxStorageBufferRange;
  info.limits.max_buffer_size = has_maintenance4 ? maintenance4.maxBufferSize : limits.maxStorageBufferRange;
  info.limits.max_push_constants_bytes = limits.maxPushConstantsSize;
  for (uint32_t heap = 0; heap < memory.memoryHeapCount; ++heap) {
    if ((memory.memoryHeaps[heap].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0) {
      info.limits.device_local_memory_bytes =
          std::max<uint64_t>(info.limits.device_local_memory_bytes, memory.memoryHeaps[heap].size);
    }
  }

  const VkSubgroupFeatureFlags ops = subgroup.supportedOperations;
  const bool compute_subgroups = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  info.features.int64 = features.features.shaderInt64 == VK_TRUE;
  info.features.float64 = features.features.shaderFloat64 == VK_TRUE;
  info.features.int16 = features.features.shaderInt16 == VK_TRUE;
  info.features.float16_arithmetic = float16.shaderFloat16 == VK_TRUE;
  info.features.storage_buffer_16bit = storage16.storageBuffer16BitAccess == VK_TRUE;
  info.features.subgroup_basic = compute_subgroups && (ops & VK_SUBGROUP_FEATURE_BASIC_BIT) != 0;
  info.features.subgroup_arithmetic = compute_subgroups && (ops & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) != 0;
  info.features.subgroup_ballot = compute_subgroups && (ops & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
  info.features.subgroup_shuffle = compute_subgroups && (ops & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) != 0;
  info.features.buffer_float32_atomic_add = atomic_float.shaderBufferFloat32AtomicAdd == VK_TRUE;
  info.features.int64_atomics =
      atomic_int64.shaderBufferInt64Atomics == VK_TRUE && atomic_int64.shaderSharedInt64Atomics == VK_TRUE;
  info.features.float32_denorm_preserve = float_controls.shaderDenormPreserveFloat32 == VK_TRUE;
  info.features.float32_inf_nan_preserve = float_controls.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE;
  return info;
}

int type_rank(DeviceType type) {
  switch (type) {
    case DeviceType::DiscreteGpu:
      return 0;
    case DeviceType::IntegratedGpu:
      return 1;
    case DeviceType::VirtualGpu:
      return 2;
    case DeviceType::Other:
      return 3;
    case DeviceType::Cpu:
      return 4;
  }
  return 5;
}

}  // namespace

std::vector<DeviceInfo> list_devices() {
  if (!vulkan_availability().available) return {};
  VkInstance instance = vulkan_instance();
  uint32_t count = 0;
  if (vkEnumeratePhysicalDevices(instance, &count, nullptr) != VK_SUCCESS) return {};
  std::vector<VkPhysicalDevice> physical(count);
  if (vkEnumeratePhysicalDevices(instance, &count, physical.data()) != VK_SUCCESS) return {};
  std::vector<DeviceInfo> devices;
  devices.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    VkPhysicalDeviceProperties basic{};
    vkGetPhysicalDeviceProperties(physical[i], &basic);
    // Compute needs Vulkan 1.1 here (subgroups, 16-bit storage, properties2 in core).
    if (basic.apiVersion < VK_API_VERSION_1_1) continue;
    devices.push_back(describe(physical[i], i));
  }
  return devices;
}

bool software_gpu_allowed_by_environment() {
  const char* value = std::getenv("WAVESTACK_ALLOW_SOFTWARE_GPU");
  if (value == nullptr) return false;
  const std::string_view text(value);
  return text == "1" || text == "true" || text == "TRUE" || text == "yes" || text == "on";
}

std::optional<DeviceInfo> select_device(const std::vector<DeviceInfo>& devices, bool allow_software) {
  const bool software_ok = allow_software || software_gpu_allowed_by_environment();
  const DeviceInfo* best = nullptr;
  for (const DeviceInfo& device : devices) {
    if (device.is_software && !software_ok) continue;
    if (best == nullptr) {
      best = &device;
      continue;
    }
    // Hardware always beats software, then the device type, then the larger memory.
    const auto key = [](const DeviceInfo& d) {
      return std::tuple(d.is_software, type_rank(d.type), ~d.limits.device_local_memory_bytes, d.index);
    };
    if (key(device) < key(*best)) best = &device;
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

std::optional<DeviceInfo> select_device(bool allow_software) {
  return select_device(list_devices(), allow_software);
}

}  // namespace wavestack::runtime
