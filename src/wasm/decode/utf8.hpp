// UTF-8 well-formedness as the WebAssembly binary format requires for names: shortest
// encodings only, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wavestack::wasm {

[[nodiscard]] bool is_valid_utf8(const std::uint8_t* data, std::size_t size) noexcept;

}  // namespace wavestack::wasm
