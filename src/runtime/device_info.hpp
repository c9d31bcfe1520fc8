// What the runtime knows about one Vulkan physical device, in plain C++ types so that
// bindings and callers never see Vulkan headers.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace wavestack::runtime {

enum class DeviceType { Other, IntegratedGpu, DiscreteGpu, VirtualGpu, Cpu };

[[nodiscard]] const char* device_type_name(DeviceType type) noexcept;

struct DeviceLimits {
  std::array<uint32_t, 3> max_workgroup_size{};
  uint32_t max_workgroup_invocations = 0;
  std::array<uint32_t, 3> max_workgroup_count{};
  uint32_t max_shared_memory_bytes = 0;
  uint64_t max_storage_buffer_range = 0;
  // Largest single buffer: maintenance4's limit where known, else the storage buffer range.
  uint64_t max_buffer_size = 0;
  uint32_t max_push_constants_bytes = 0;
  uint64_t device_local_memory_bytes = 0;
};

struct DeviceFeatures {
  bool int64 = false;
  bool float64 = false;
  bool float16_arithmetic = false;
  bool int16 = false;
  bool storage_buffer_16bit = false;
  bool subgroup_basic = false;
  bool subgroup_arithmetic = false;
  bool subgroup_ballot = false;
  bool subgroup_shuffle = false;
  bool buffer_float32_atomic_add = false;
  bool int64_atomics = false;  // shaderBufferInt64Atomics and shaderSharedInt64Atomics
  // Float controls (Vulkan 1.2 / VK_KHR_shader_float_controls): whether a shader may ask that
  // subnormals be kept (DenormPreserve) and that NaN, infinities and signed zeros follow IEEE 754
  // (SignedZeroInfNanPreserve). Without them a driver may flush subnormals and assume no NaN;
  // NVIDIA's does both for 32-bit floats (its f64 results matched the emulator's without them).
  bool float32_denorm_preserve = false;
  bool float32_inf_nan_preserve = false;
};

struct DeviceInfo {
  uint32_t index = 0;  // position in the loader's enumeration order
  std::string vendor;  // "nvidia", "amd", "intel", "apple", ... or "0x1234"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  std::string name;
  DeviceType type = DeviceType::Other;
  bool is_software = false;  // a CPU implementation such as lavapipe or SwiftShader
  uint32_t subgroup_size = 0;
  uint32_t api_version = 0;
  uint32_t driver_version = 0;
  std::string driver_name;
  std::string driver_info;
  std::string pipeline_cache_uuid;  // hex; changes with the driver build
  DeviceLimits limits;
  DeviceFeatures features;

  // Identity of the device and driver, used in every cache key so that an updated driver
  // never reads a stale pipeline cache.
  [[nodiscard]] std::string cache_identity() const;
};

// "nvidia", "amd", "intel", "apple", "arm", "qualcomm", "mesa", else "0x%04x".
[[nodiscard]] std::string vendor_name(uint32_t vendor_id);

}  // namespace wavestack::runtime
