// Whether compiled units are built ahead of need (the units a reached unit can continue in,
// on the build pool beside the call): WAVESTACK_WASM_BUILD_AHEAD=on/off. Unset, each device
// picks its default: on for the cpu device and hardware GPUs, off on software adapters
// (lavapipe compiles at the first dispatch, so building ahead gains nothing there). Read by a
// Vulkan spawn, and by the cpu device with its tier plan (a module's first unit built).
#pragma once

namespace wavestack::wasm {

// `value`: the variable's text (null or empty: unset, giving `unset`). Throws
// runtime::InvalidArgument naming the variable for anything but "on" or "off".
[[nodiscard]] bool build_ahead_enabled(const char* value, bool unset);
[[nodiscard]] bool build_ahead_enabled_from_environment(bool unset);

}  // namespace wavestack::wasm
