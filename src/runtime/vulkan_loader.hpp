// Run-time loading of the Vulkan loader and the one process-wide VkInstance.
#pragma once

#include <string>

#include "runtime/vulkan_api.hpp"

namespace wavestack::runtime {

// Why Vulkan is unusable in this process, or an empty string when it is usable.
struct VulkanAvailability {
  bool available = false;
  std::string reason;
};

// Loads libvulkan (or the library named by WAVESTACK_VULKAN_LIBRARY) and creates the shared
// instance on first use. Never throws: a missing loader or driver is an answer, not an error.
[[nodiscard]] const VulkanAvailability& vulkan_availability();

// The shared instance; only valid when vulkan_availability().available.
[[nodiscard]] VkInstance vulkan_instance();

}  // namespace wavestack::runtime
