// A fast 64-bit checksum (the XXH64 algorithm, seed 0) for the disk cache's entries: it catches
// a damaged entry at memory speed (SHA-256 was a fifth of a warm start that loads hundreds of
// cached units). Not a cryptographic digest: cache keys stay SHA-256.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace wavestack::runtime {

[[nodiscard]] std::uint64_t checksum64(std::span<const std::byte> data);

}  // namespace wavestack::runtime
