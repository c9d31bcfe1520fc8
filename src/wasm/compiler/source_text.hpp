// Small pieces of the generated device-subset text that every code generator of compiled mode
// spells the same way.
#pragma once

#include <cstdint>
#include <string>

namespace wavestack::wasm::compiler {

// A uint literal of the device subset: "123u".
inline std::string u32(std::uint32_t value) {
  return std::to_string(value) + "u";
}

// `prefix` followed by n: a generated name such as "b12" or "l3" (appended: GCC 12 reports a
// false -Wrestrict for "x" + std::to_string(n)).
inline std::string numbered(const char* prefix, std::uint32_t n) {
  std::string name(prefix);
  name += std::to_string(n);
  return name;
}

}  // namespace wavestack::wasm::compiler
