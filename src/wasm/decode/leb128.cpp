#include "wasm/decode/leb128.hpp"

namespace wavestack::wasm {

LebResult decode_unsigned_leb128(const std::uint8_t* data, std::size_t size, unsigned bits) noexcept {
  const unsigned max_bytes = (bits + 6) / 7;
  LebResult result;
  for (unsigned index = 0; index < max_bytes; ++index) {
    if (index >= size) return {0, index, LebStatus::kUnexpectedEnd};
    const std::uint8_t byte = data[index];
    const unsigned shift = 7 * index;
    const std::uint64_t payload = byte & 0x7FU;
    if (index + 1 == max_bytes) {
      // The last permitted byte: no continuation, and only bits - shift payload bits may be used.
      if ((byte & 0x80U) != 0) return {0, index + 1, LebStatus::kTooLong};
      const unsigned used = bits - shift;
      if (used < 7 && (payload >> used) != 0) return {0, index + 1, LebStatus::kTooLarge};
    }
    result.value |= payload << shift;
    if ((byte & 0x80U) == 0) {
      result.length = index + 1;
      return result;
    }
  }
  return {0, max_bytes, LebStatus::kTooLong};  // unreachable: the last byte returns above
}

LebResult decode_signed_leb128(const std::uint8_t* data, std::size_t size, unsigned bits) noexcept {
  const unsigned max_bytes = (bits + 6) / 7;
  LebResult result;
  for (unsigned index = 0; index < max_bytes; ++index) {
    if (index >= size) return {0, index, LebStatus::kUnexpectedEnd};
    const std::uint8_t byte = data[index];
    const unsigned shift = 7 * index;
    const std::uint64_t payload = byte & 0x7FU;
    if (index + 1 == max_bytes) {
      if ((byte & 0x80U) != 0) return {0, index + 1, LebStatus::kTooLong};
      // The bits above the value's sign bit must all equal it.
      const unsigned used = bits - shift;
      if (used < 7) {
        const std::uint64_t sign = (payload >> (used - 1)) & 1U;
        const std::uint64_t unused = payload >> used;
        const std::uint64_t expected = sign != 0 ? (0x7FU >> used) : 0U;
        if (unused != expected) return {0, index + 1, LebStatus::kTooLarge};
      }
    }
    result.value |= payload << shift;
    if ((byte & 0x80U) == 0) {
      const unsigned consumed_bits = shift + 7;
      if (consumed_bits < 64 && (byte & 0x40U) != 0) result.value |= ~std::uint64_t{0} << consumed_bits;
      result.length = index + 1;
      return result;
    }
  }
  return {0, max_bytes, LebStatus::kTooLong};
}

}  // namespace wavestack::wasm
