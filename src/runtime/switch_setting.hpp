// An on/off environment variable (WAVESTACK_WASM_LANE_GROUPS, WAVESTACK_WASM_BUILD_AHEAD, ...).
#pragma once

namespace wavestack::runtime {

// `value`: the variable's text; null or empty gives `unset`. Throws InvalidArgument naming
// `variable` for anything but "on" or "off".
[[nodiscard]] bool switch_setting(const char* variable, const char* value, bool unset);

}  // namespace wavestack::runtime
