#include "wasm/instances/build_ahead_setting.hpp"

#include <cstdlib>

#include "runtime/switch_setting.hpp"

namespace wavestack::wasm {

namespace {
constexpr const char* kVariable = "WAVESTACK_WASM_BUILD_AHEAD";
}  // namespace

bool build_ahead_enabled(const char* value, bool unset) {
  return runtime::switch_setting(kVariable, value, unset);
}

bool build_ahead_enabled_from_environment(bool unset) {
  return build_ahead_enabled(std::getenv(kVariable), unset);
}

}  // namespace wavestack::wasm
