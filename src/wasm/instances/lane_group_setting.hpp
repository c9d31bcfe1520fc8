// Whether the cpu device runs compiled calls in lane groups (compiler/lane_group_codegen.hpp):
// on by default; WAVESTACK_WASM_LANE_GROUPS=off runs every instance alone (to compare the two,
// or to rule grouping out while debugging). Read at every call's first step, so a process
// can switch it between calls.
#pragma once

namespace wavestack::wasm {

// `value`: the variable's text (null or empty: unset). Throws runtime::InvalidArgument naming
// the variable for anything but "on" or "off".
[[nodiscard]] bool lane_groups_enabled(const char* value);
[[nodiscard]] bool lane_groups_enabled_from_environment();

}  // namespace wavestack::wasm
