// How much one Vulkan dispatch of the run shaders may do per instance: records (WebAssembly
// instructions) and loop work (compiled_blocks.glsl's budget). A dispatch ends at either limit
// and the host starts the next one after reading every instance's outcome back, so small
// limits make a call dispatch-bound: on an NVIDIA H200 every workload of bench/wasmgpu.py ran
// slower than 16 CPU cores with lavapipe's limits. Software devices keep those small limits:
// lavapipe ends every loop of an invocation after 65535 iterations in all. Hardware devices
// get limits that still keep one dispatch to milliseconds, well inside display watchdogs.
#pragma once

#include <cstdint>

namespace wavestack::wasm {

struct DispatchLimits {
  std::uint32_t records = 0;  // the run loop's quantum
  std::uint32_t work = 0;     // the loop budget
};

inline constexpr DispatchLimits kSoftwareDispatchLimits{1024, 16384};
inline constexpr DispatchLimits kHardwareDispatchLimits{65536, 1U << 22U};
// Loop work allowed per record of a dispatch's quantum: a caller's small quantum (asked for
// short dispatches, so prompt cancellation or progress) bounds bulk instructions' chunks too.
inline constexpr std::uint32_t kWorkPerRecord = 1024;

// The quantum and loop budget of one dispatch for a caller's `quantum`.
[[nodiscard]] DispatchLimits dispatch_for(const DispatchLimits& limits, std::uint32_t quantum);

// The limits of a device (`software`: a CPU implementation such as lavapipe), unless
// `override_value` (WAVESTACK_WASM_DISPATCH_LIMITS; null or empty: none) names the other
// profile: "software" (a GPU under a tight watchdog) or "hardware". Throws
// runtime::InvalidArgument naming the variable for any other text.
[[nodiscard]] DispatchLimits dispatch_limits_for(bool software, const char* override_value);

// The same, with the override read from the environment.
[[nodiscard]] DispatchLimits dispatch_limits_for(bool software);

}  // namespace wavestack::wasm
