#include "runtime/checksum64.hpp"

#include <bit>
#include <cstring>

namespace wavestack::runtime {
namespace {

constexpr std::uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr std::uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

// Little-endian reads, whatever the host's order.
std::uint64_t read64(const std::byte* at) {
  std::uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | std::to_integer<std::uint64_t>(at[i]);
  return value;
}

std::uint64_t read32(const std::byte* at) {
  std::uint64_t value = 0;
  for (int i = 3; i >= 0; --i) value = (value << 8) | std::to_integer<std::uint64_t>(at[i]);
  return value;
}

std::uint64_t round(std::uint64_t accumulator, std::uint64_t input) {
  accumulator += input * kPrime2;
  return std::rotl(accumulator, 31) * kPrime1;
}

std::uint64_t merge(std::uint64_t hash, std::uint64_t accumulator) {
  hash ^= round(0, accumulator);
  return hash * kPrime1 + kPrime4;
}

}  // namespace

std::uint64_t checksum64(std::span<const std::byte> data) {
  const std::byte* at = data.data();
  const std::byte* const end = at + data.size();
  std::uint64_t hash = 0;
  if (data.size() >= 32) {
    // Four independent lanes over 32-byte stripes.
    std::uint64_t lanes[4] = {kPrime1 + kPrime2, kPrime2, 0, 0 - kPrime1};
    for (; end - at >= 32; at += 32) {
      for (int k = 0; k < 4; ++k) lanes[k] = round(lanes[k], read64(at + 8 * k));
    }
    hash = std::rotl(lanes[0], 1) + std::rotl(lanes[1], 7) + std::rotl(lanes[2], 12) + std::rotl(lanes[3], 18);
    for (const std::uint64_t lane : lanes) hash = merge(hash, lane);
  } else {
    hash = kPrime5;
  }
  hash += data.size();
  for (; end - at >= 8; at += 8) {
    hash ^= round(0, read64(at));
    hash = std::rotl(hash, 27) * kPrime1 + kPrime4;
  }
  if (end - at >= 4) {
    hash ^= read32(at) * kPrime1;
    hash = std::rotl(hash, 23) * kPrime2 + kPrime3;
    at += 4;
  }
  for (; at < end; ++at) {
    hash ^= std::to_integer<std::uint64_t>(*at) * kPrime5;
    hash = std::rotl(hash, 11) * kPrime1;
  }
  hash ^= hash >> 33;
  hash *= kPrime2;
  hash ^= hash >> 29;
  hash *= kPrime3;
  hash ^= hash >> 32;
  return hash;
}

}  // namespace wavestack::runtime
