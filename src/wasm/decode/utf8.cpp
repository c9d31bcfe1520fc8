#include "wasm/decode/utf8.hpp"

namespace wavestack::wasm {

bool is_valid_utf8(const std::uint8_t* data, std::size_t size) noexcept {
  std::size_t index = 0;
  while (index < size) {
    const std::uint8_t lead = data[index];
    if (lead < 0x80U) {
      ++index;
      continue;
    }
    unsigned length = 0;
    std::uint32_t code_point = 0;
    std::uint32_t minimum = 0;
    if ((lead & 0xE0U) == 0xC0U) {
      length = 2;
      code_point = lead & 0x1FU;
      minimum = 0x80U;
    } else if ((lead & 0xF0U) == 0xE0U) {
      length = 3;
      code_point = lead & 0x0FU;
      minimum = 0x800U;
    } else if ((lead & 0xF8U) == 0xF0U) {
      length = 4;
      code_point = lead & 0x07U;
      minimum = 0x10000U;
    } else {
      return false;  // a continuation byte or 0xF8..0xFF where a character must start
    }
    if (size - index < length) return false;
    for (unsigned k = 1; k < length; ++k) {
      const std::uint8_t next = data[index + k];
      if ((next & 0xC0U) != 0x80U) return false;
      code_point = (code_point << 6U) | (next & 0x3FU);
    }
    if (code_point < minimum) return false;  // overlong
    if (code_point >= 0xD800U && code_point <= 0xDFFFU) return false;
    if (code_point > 0x10FFFFU) return false;
    index += length;
  }
  return true;
}

}  // namespace wavestack::wasm
