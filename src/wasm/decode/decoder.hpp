// Binary decoding: bytes -> Module. Throws MalformedModule for anything that is not a
// WebAssembly 2.0 binary and UnsupportedFeature for encodings of features outside the
// profile (SIMD, threads, exceptions, ...). Decoding does not validate types or indices;
// validator.hpp does that.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wasm/module/module.hpp"

namespace wavestack::wasm {

[[nodiscard]] Module decode_module(const std::uint8_t* data, std::size_t size);

}  // namespace wavestack::wasm
