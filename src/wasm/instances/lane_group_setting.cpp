#include "wasm/instances/lane_group_setting.hpp"

#include <cstdlib>

#include "runtime/switch_setting.hpp"

namespace wavestack::wasm {

bool lane_groups_enabled(const char* value) {
  return runtime::switch_setting("WAVESTACK_WASM_LANE_GROUPS", value, true);
}

bool lane_groups_enabled_from_environment() {
  return lane_groups_enabled(std::getenv("WAVESTACK_WASM_LANE_GROUPS"));
}

}  // namespace wavestack::wasm
