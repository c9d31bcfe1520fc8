// Shared test helpers. How C++ tests obtain a Vulkan device: the one the runtime would select, software adapters
// allowed only as the environment allows. With WAVESTACK_REQUIRE_GPU=1 (set by CI) a missing
// device fails the test instead of skipping it, so CI can never pass without running it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/device_discovery.hpp"
#include "runtime/vulkan_loader.hpp"

namespace wavestack::testing {

inline bool gpu_required() {
  const char* value = std::getenv("WAVESTACK_REQUIRE_GPU");
  return value != nullptr && std::string_view(value) == "1";
}

inline std::optional<runtime::DeviceInfo> test_device() {
  return runtime::select_device(false);
}

// Sets (or, with nullptr, unsets) an environment variable for one scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace wavestack::testing

// Skips (or, under WAVESTACK_REQUIRE_GPU=1, fails) the current test when no device exists.
#define WAVESTACK_REQUIRE_DEVICE(device_variable)                                                              \
  auto device_variable = ::wavestack::testing::test_device();                                                  \
  if (!device_variable) {                                                                                      \
    const std::string why = "no usable Vulkan device (" + ::wavestack::runtime::vulkan_availability().reason + \
                            "; software adapters need WAVESTACK_ALLOW_SOFTWARE_GPU=1)";                        \
    if (::wavestack::testing::gpu_required()) FAIL() << why;                                                   \
    GTEST_SKIP() << why;                                                                                       \
  }
