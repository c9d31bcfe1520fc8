#include <gtest/gtest.h>

#include "runtime/device_discovery.hpp"
#include "test_support.hpp"

using wavestack::runtime::DeviceInfo;
using wavestack::runtime::DeviceType;
using wavestack::runtime::select_device;

namespace {

DeviceInfo fake(uint32_t index, DeviceType type, bool software, uint64_t memory) {
  DeviceInfo device;
  device.index = index;
  device.type = type;
  device.is_software = software;
  device.limits.device_local_memory_bytes = memory;
  return device;
}

}  // namespace

TEST(DeviceSelection, PrefersDiscreteThenIntegratedThenMemory) {
  const std::vector<DeviceInfo> devices = {
      fake(0, DeviceType::Cpu, true, 1ULL << 34), fake(1, DeviceType::IntegratedGpu, false, 1ULL << 33),
      fake(2, DeviceType::DiscreteGpu, false, 1ULL << 30), fake(3, DeviceType::DiscreteGpu, false, 1ULL << 32)};
  const auto chosen = select_device(devices, false);
  ASSERT_TRUE(chosen.has_value());
  EXPECT_EQ(chosen->index, 3U);
}

TEST(DeviceSelection, SoftwareOnlyWhenAllowed) {
  const std::vector<DeviceInfo> only_software = {fake(0, DeviceType::Cpu, true, 1ULL << 30)};
  {
    const wavestack::testing::ScopedEnv unset("WAVESTACK_ALLOW_SOFTWARE_GPU", nullptr);
    EXPECT_FALSE(select_device(only_software, false).has_value());
    EXPECT_TRUE(select_device(only_software, true).has_value());
  }
  const wavestack::testing::ScopedEnv allow("WAVESTACK_ALLOW_SOFTWARE_GPU", "1");
  EXPECT_TRUE(select_device(only_software, false).has_value());
}

TEST(DeviceSelection, HardwareBeatsSoftwareEvenWhenAllowed) {
  const std::vector<DeviceInfo> devices = {fake(0, DeviceType::Cpu, true, 1ULL << 36),
                                           fake(1, DeviceType::IntegratedGpu, false, 1ULL << 28)};
  EXPECT_EQ(select_device(devices, true)->index, 1U);
}

TEST(DeviceDiscovery, ListedDevicesAreDescribed) {
  WAVESTACK_REQUIRE_DEVICE(device);
  EXPECT_FALSE(device->name.empty());
  EXPECT_FALSE(device->vendor.empty());
  EXPECT_GT(device->subgroup_size, 0U);
  EXPECT_GE(device->limits.max_workgroup_invocations, 128U);  // Vulkan's required minimum
  EXPECT_GE(device->limits.max_shared_memory_bytes, 16384U);
  EXPECT_GT(device->limits.max_buffer_size, 0U);
  EXPECT_GE(device->limits.max_push_constants_bytes, 128U);
  const auto all = wavestack::runtime::list_devices();
  ASSERT_FALSE(all.empty());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].index, i);
}
