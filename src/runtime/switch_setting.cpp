#include "runtime/switch_setting.hpp"

#include <string>
#include <string_view>

#include "runtime/error.hpp"

namespace wavestack::runtime {

bool switch_setting(const char* variable, const char* value, bool unset) {
  if (value == nullptr || *value == '\0') return unset;
  const std::string_view text = value;
  if (text == "on") return true;
  if (text == "off") return false;
  throw InvalidArgument(variable, "must be 'on' or 'off', got '" + std::string(text) + "'");
}

}  // namespace wavestack::runtime
