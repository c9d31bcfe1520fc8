// Builds small WebAssembly binaries byte by byte for the decoder and validator tests, so
// each test states exactly the bytes it feeds in.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace wavestack::testing {

using Bytes = std::vector<std::uint8_t>;

inline Bytes wasm_header() {
  return {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
}

// Appends a section with its id and (single-byte) size.
inline void add_section(Bytes& module, std::uint8_t id, const Bytes& contents) {
  module.push_back(id);
  module.push_back(static_cast<std::uint8_t>(contents.size()));
  module.insert(module.end(), contents.begin(), contents.end());
}

// A module with one function of type `type` ([params] -> [results] as a type section
// entry) and the given body (locals declaration included).
inline Bytes one_function_module(const Bytes& type, const Bytes& body) {
  Bytes module = wasm_header();
  Bytes types = {0x01};
  types.insert(types.end(), type.begin(), type.end());
  add_section(module, 1, types);
  add_section(module, 3, {0x01, 0x00});
  Bytes code = {0x01, static_cast<std::uint8_t>(body.size())};
  code.insert(code.end(), body.begin(), body.end());
  add_section(module, 10, code);
  return module;
}

}  // namespace wavestack::testing
