// LEB128 decoding with the exact size and range rules of the WebAssembly binary format:
// an N-bit integer takes at most ceil(N/7) bytes, and the unused bits of the last byte must
// be zero (unsigned) or copies of the sign bit (signed). Pure functions over a byte range,
// so they are testable without a module around them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wavestack::wasm {

enum class LebStatus : std::uint8_t {
  kOk,
  kUnexpectedEnd,  // the input ended inside the number
  kTooLong,        // more bytes than ceil(N/7): "integer representation too long"
  kTooLarge,       // the last byte sets bits beyond N: "integer too large"
};

struct LebResult {
  std::uint64_t value = 0;  // signed results are sign-extended to 64 bits
  std::size_t length = 0;   // bytes consumed (valid when status is kOk)
  LebStatus status = LebStatus::kOk;
};

// `bits` is N (1..64). Reads from data[0..size).
[[nodiscard]] LebResult decode_unsigned_leb128(const std::uint8_t* data, std::size_t size, unsigned bits) noexcept;
[[nodiscard]] LebResult decode_signed_leb128(const std::uint8_t* data, std::size_t size, unsigned bits) noexcept;

}  // namespace wavestack::wasm
