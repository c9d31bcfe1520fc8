#include "wasm/instances/dispatch_limits.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/error.hpp"

namespace wavestack::wasm {

DispatchLimits dispatch_limits_for(bool software, const char* override_value) {
  if (override_value == nullptr || *override_value == '\0') {
    return software ? kSoftwareDispatchLimits : kHardwareDispatchLimits;
  }
  const std::string_view text = override_value;
  if (text == "software") return kSoftwareDispatchLimits;
  if (text == "hardware") return kHardwareDispatchLimits;
  throw runtime::InvalidArgument("WAVESTACK_WASM_DISPATCH_LIMITS",
                                 "must be 'software' or 'hardware', got '" + std::string(text) + "'");
}

DispatchLimits dispatch_for(const DispatchLimits& limits, std::uint32_t quantum) {
  const std::uint32_t records = std::min(std::max(quantum, 1U), limits.records);
  const std::uint64_t work = std::uint64_t{records} * kWorkPerRecord;
  return {records, static_cast<std::uint32_t>(std::min<std::uint64_t>(work, limits.work))};
}

DispatchLimits dispatch_limits_for(bool software) {
  return dispatch_limits_for(software, std::getenv("WAVESTACK_WASM_DISPATCH_LIMITS"));
}

}  // namespace wavestack::wasm
