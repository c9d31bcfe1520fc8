#include "wasm/lane_group_setting.hpp"

#include <cstdlib>
#include <string>
#include <string_view>

#include "runtime/error.hpp"

namespace wavestack::wasm {

bool lane_groups_enabled(const char* value) {
  if (value == nullptr || *value == '\0') return true;
  const std::string_view text = value;
  if (text == "on") return true;
  if (text == "off") return false;
  throw runtime::InvalidArgument("WAVESTACK_WASM_LANE_GROUPS",
                                 "must be 'on' or 'off', got '" + std::string(text) + "'");
}

bool lane_groups_enabled_from_environment() {
  return lane_groups_enabled(std::getenv("WAVESTACK_WASM_LANE_GROUPS"));
}

}  // namespace wavestack::wasm
