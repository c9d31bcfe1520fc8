#include "runtime/disk_cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>

#include "runtime/checksum64.hpp"
#include "runtime/sha256.hpp"
#include "runtime/version.hpp"

namespace wavestack::runtime {
namespace {

// Entry layout: magic, payload length and checksum64 of the payload (8 bytes each, little
// endian), payload.
constexpr std::string_view kMagic = "WSCACHE2";
constexpr size_t kHeaderBytes = 8 + 8 + 8;

void put64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t get64(const char* at) {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value |= uint64_t{static_cast<uint8_t>(at[i])} << (8 * i);
  return value;
}

std::string unique_suffix() {
  static std::atomic<uint64_t> counter{0};
  thread_local std::mt19937_64 random{std::random_device{}()};
  return std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1)) + "." + std::to_string(random());
}

}  // namespace

std::optional<std::filesystem::path> DiskCache::default_root() {
  if (const char* explicit_dir = std::getenv("WAVESTACK_CACHE_DIR"); explicit_dir != nullptr && *explicit_dir) {
    if (std::string_view(explicit_dir) == "off") return std::nullopt;
    return std::filesystem::path(explicit_dir);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg) {
    return std::filesystem::path(xdg) / "wavestack";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home) {
    return std::filesystem::path(home) / ".cache" / "wavestack";
  }
  return std::nullopt;
}

DiskCache::DiskCache() : DiskCache(default_root()) {}

DiskCache::DiskCache(std::optional<std::filesystem::path> root) : root_(std::move(root)) {}

std::filesystem::path DiskCache::entry_path(std::string_view kind, std::string_view key) const {
  return *root_ / std::string(kind) / (std::string(key) + ".bin");
}

std::optional<std::vector<std::byte>> DiskCache::load(std::string_view kind, std::string_view key) const {
  if (!enabled()) return std::nullopt;
  const std::filesystem::path path = entry_path(kind, key);
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const auto file_size = static_cast<uint64_t>(in.tellg());
  in.seekg(0);
  std::vector<char> header(kHeaderBytes);
  if (file_size < kHeaderBytes || !in.read(header.data(), static_cast<std::streamsize>(header.size()))) {
    return std::nullopt;
  }
  if (std::string_view(header.data(), kMagic.size()) != kMagic) return std::nullopt;
  const uint64_t length = get64(header.data() + 8);
  if (length != file_size - kHeaderBytes) return std::nullopt;  // truncated or extended
  std::vector<std::byte> payload(length);
  if (!in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(length))) return std::nullopt;
  if (checksum64(payload) != get64(header.data() + 16)) {
    // A damaged entry is removed so the next store can replace it.
    std::error_code ignored;
    std::filesystem::remove(path, ignored);
    return std::nullopt;
  }
  return payload;
}

bool DiskCache::store(std::string_view kind, std::string_view key, std::span<const std::byte> payload) const {
  if (!enabled()) return false;
  const std::filesystem::path path = entry_path(kind, key);
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;

  std::string header(kMagic);
  put64(header, payload.size());
  put64(header, checksum64(payload));

  // Write beside the target and rename: readers see either the old entry or the whole new one.
  const std::filesystem::path temporary = path.string() + ".tmp." + unique_suffix();
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(payload.data()), static_cast<std::streamsize>(payload.size()));
    out.flush();
    if (!out) {
      std::filesystem::remove(temporary, error);
      return false;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    return false;
  }
  return true;
}

std::string make_cache_key(std::initializer_list<std::string_view> parts) {
  Sha256 hash;
  hash.update_field(kProjectVersion);
  for (std::string_view part : parts) hash.update_field(part);
  return hash.hex_digest();
}

}  // namespace wavestack::runtime
