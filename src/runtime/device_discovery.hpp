// Listing Vulkan devices and choosing one (DESIGN decision 3: software adapters only on request).
#pragma once

#include <optional>
#include <vector>

#include "runtime/device_info.hpp"

namespace wavestack::runtime {

// Every physical device the loader reports. No loader or no driver gives an empty list.
[[nodiscard]] std::vector<DeviceInfo> list_devices();

// True when WAVESTACK_ALLOW_SOFTWARE_GPU is set to 1 (or true/yes/on).
[[nodiscard]] bool software_gpu_allowed_by_environment();

// The best hardware GPU (discrete, then integrated, then virtual; more memory first). A
// software adapter is considered only when allow_software or the environment allows it.
[[nodiscard]] std::optional<DeviceInfo> select_device(const std::vector<DeviceInfo>& devices, bool allow_software);
[[nodiscard]] std::optional<DeviceInfo> select_device(bool allow_software = false);

}  // namespace wavestack::runtime
