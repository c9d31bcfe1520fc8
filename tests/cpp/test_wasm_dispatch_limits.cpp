// How much one Vulkan dispatch may do per instance (src/wasm/instances/dispatch_limits.hpp): lavapipe's
// small limits on software devices, larger ones on hardware, and the override that picks
// either profile by name.
#include <gtest/gtest.h>

#include <string>

#include "runtime/error.hpp"
#include "wasm/instances/dispatch_limits.hpp"

namespace wavestack::wasm {
namespace {

bool same(DispatchLimits a, DispatchLimits b) {
  return a.records == b.records && a.work == b.work;
}

TEST(WasmDispatchLimits, SoftwareDevicesKeepLavapipesLimitsAndHardwareGetsMore) {
  EXPECT_TRUE(same(dispatch_limits_for(true, nullptr), DispatchLimits{1024, 16384}));
  EXPECT_TRUE(same(dispatch_limits_for(false, nullptr), DispatchLimits{65536, 1U << 22U}));
  EXPECT_TRUE(same(dispatch_limits_for(false, ""), kHardwareDispatchLimits));
  // The software budget must stay below lavapipe's 65535 loop iterations per invocation.
  EXPECT_LT(kSoftwareDispatchLimits.work, 65535U);
}

// A dispatch takes the caller's quantum up to the device's records, and loop work in
// proportion to it up to the device's budget.
TEST(WasmDispatchLimits, ADispatchFollowsTheCallersQuantumWithinTheDevicesLimits) {
  EXPECT_TRUE(same(dispatch_for(kHardwareDispatchLimits, 4096), DispatchLimits{4096, 1U << 22U}));
  EXPECT_TRUE(same(dispatch_for(kHardwareDispatchLimits, 10), DispatchLimits{10, 10240}));
  EXPECT_TRUE(same(dispatch_for(kHardwareDispatchLimits, 0xFFFFFFFFU), kHardwareDispatchLimits));
  EXPECT_TRUE(same(dispatch_for(kSoftwareDispatchLimits, 4096), kSoftwareDispatchLimits));
  EXPECT_TRUE(same(dispatch_for(kSoftwareDispatchLimits, 10), DispatchLimits{10, 10240}));
  EXPECT_TRUE(same(dispatch_for(kSoftwareDispatchLimits, 0), DispatchLimits{1, 1024}));
}

TEST(WasmDispatchLimits, TheOverrideNamesAProfile) {
  EXPECT_TRUE(same(dispatch_limits_for(false, "software"), kSoftwareDispatchLimits));
  EXPECT_TRUE(same(dispatch_limits_for(true, "hardware"), kHardwareDispatchLimits));
  try {
    (void)dispatch_limits_for(false, "fast");
    FAIL() << "an unknown profile was accepted";
  } catch (const runtime::InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "WAVESTACK_WASM_DISPATCH_LIMITS");
    EXPECT_NE(std::string(error.what()).find("'fast'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace wavestack::wasm
