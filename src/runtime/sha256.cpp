#include "runtime/sha256.hpp"

#include <cstdio>
#include <cstring>

#include "runtime/sha256_blocks.hpp"

namespace wavestack::runtime {
namespace {

constexpr uint32_t rotr(uint32_t value, int bits) {
  return (value >> bits) | (value << (32 - bits));
}

}  // namespace

Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void sha256_blocks_portable(std::array<uint32_t, 8>& state, const uint8_t* blocks, size_t count) {
  for (size_t index = 0; index < count; ++index) {
    const uint8_t* block = blocks + 64 * index;
    std::array<uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i) {
      w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) | (uint32_t{block[4 * i + 2]} << 8) |
             uint32_t{block[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const uint32_t choose = (e & f) ^ (~e & g);
      const uint32_t t1 = h + s1 + choose + kSha256RoundConstants[i] + w[i];
      const uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
      const uint32_t t2 = s0 + majority;
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
  }
}

Sha256& Sha256::update(std::span<const std::byte> data) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t remaining = data.size();
  total_bytes_ += remaining;
  while (remaining > 0) {
    const size_t take = std::min(remaining, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, bytes, take);
    buffered_ += take;
    bytes += take;
    remaining -= take;
    if (buffered_ == buffer_.size()) {
      sha256_blocks(state_, buffer_.data(), 1);
      buffered_ = 0;
    }
    if (buffered_ == 0 && remaining >= buffer_.size()) {  // whole blocks straight from the input
      const size_t blocks = remaining / buffer_.size();
      sha256_blocks(state_, bytes, blocks);
      bytes += blocks * buffer_.size();
      remaining -= blocks * buffer_.size();
    }
  }
  return *this;
}

Sha256& Sha256::update(std::string_view text) {
  return update(std::as_bytes(std::span(text.data(), text.size())));
}

Sha256& Sha256::update_field(std::string_view field) {
  const std::string length = std::to_string(field.size()) + ":";
  update(length);
  return update(field);
}

std::array<uint8_t, 32> Sha256::digest() {
  const uint64_t bit_length = total_bytes_ * 8;
  const uint8_t pad_start = 0x80;
  update(std::as_bytes(std::span(&pad_start, 1)));
  const uint8_t zero = 0;
  while (buffered_ != 56) update(std::as_bytes(std::span(&zero, 1)));
  std::array<uint8_t, 8> length_bytes{};
  for (int i = 0; i < 8; ++i) length_bytes[i] = static_cast<uint8_t>(bit_length >> (56 - 8 * i));
  update(std::as_bytes(std::span(length_bytes)));
  std::array<uint8_t, 32> out{};
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<uint8_t>(state_[i] >> 24);
    out[4 * i + 1] = static_cast<uint8_t>(state_[i] >> 16);
    out[4 * i + 2] = static_cast<uint8_t>(state_[i] >> 8);
    out[4 * i + 3] = static_cast<uint8_t>(state_[i]);
  }
  return out;
}

std::string Sha256::hex_digest() {
  const auto bytes = digest();
  std::string text;
  text.reserve(64);
  char digits[3];
  for (uint8_t byte : bytes) {
    std::snprintf(digits, sizeof digits, "%02x", byte);
    text += digits;
  }
  return text;
}

std::string sha256_hex(std::string_view text) {
  return Sha256().update(text).hex_digest();
}

}  // namespace wavestack::runtime
