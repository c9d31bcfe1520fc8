#include "runtime/device_info.hpp"

#include <cstdio>

namespace wavestack::runtime {

const char* device_type_name(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::IntegratedGpu:
      return "integrated";
    case DeviceType::DiscreteGpu:
      return "discrete";
    case DeviceType::VirtualGpu:
      return "virtual";
    case DeviceType::Cpu:
      return "cpu";
    case DeviceType::Other:
      break;
  }
  return "other";
}

std::string vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x10DE:
      return "nvidia";
    case 0x1002:  // ATI's id, used by AMD GPUs
    case 0x1022:  // AMD's own id
      return "amd";
    case 0x8086:
      return "intel";
    case 0x106B:
      return "apple";
    case 0x13B5:
      return "arm";
    case 0x5143:
      return "qualcomm";
    case 0x10005:
      return "mesa";
    default:
      break;
  }
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "0x%04x", vendor_id);
  return buffer;
}

std::string DeviceInfo::cache_identity() const {
  char ids[64];
  std::snprintf(ids, sizeof ids, "%08x:%08x:%08x:%08x", vendor_id, device_id, driver_version, api_version);
  return std::string(ids) + ":" + pipeline_cache_uuid + ":" + driver_name + ":" + driver_info;
}

}  // namespace wavestack::runtime
