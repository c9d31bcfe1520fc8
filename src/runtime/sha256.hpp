// SHA-256 (FIPS 180-4), used for cache keys: content addressing must not collide in practice.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace wavestack::runtime {

class Sha256 {
 public:
  Sha256();
  Sha256& update(std::span<const std::byte> data);
  Sha256& update(std::string_view text);
  // Length-prefixed, so that ("ab","c") and ("a","bc") hash differently.
  Sha256& update_field(std::string_view field);
  [[nodiscard]] std::array<uint8_t, 32> digest();
  [[nodiscard]] std::string hex_digest();

 private:
  std::array<uint32_t, 8> state_{};
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

[[nodiscard]] std::string sha256_hex(std::string_view text);

}  // namespace wavestack::runtime
