// A content-addressed on-disk cache for compiled artefacts (SPIR-V, pipeline caches,
// compiled kernels). Writes are atomic (temporary file + rename), reads verify the length and
// a checksum (checksum64.hpp), and every failure degrades to a cache miss: a cache must never
// break a run.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wavestack::runtime {

class DiskCache {
 public:
  // The default root: $WAVESTACK_CACHE_DIR, else $XDG_CACHE_HOME/wavestack, else
  // ~/.cache/wavestack. WAVESTACK_CACHE_DIR=off disables the cache.
  [[nodiscard]] static std::optional<std::filesystem::path> default_root();

  // A cache at the default root (or a disabled one).
  DiskCache();
  explicit DiskCache(std::optional<std::filesystem::path> root);

  [[nodiscard]] bool enabled() const noexcept { return root_.has_value(); }
  [[nodiscard]] const std::optional<std::filesystem::path>& root() const noexcept { return root_; }

  [[nodiscard]] std::optional<std::vector<std::byte>> load(std::string_view kind, std::string_view key) const;
  // Returns false (and leaves no partial file) when the entry could not be written.
  bool store(std::string_view kind, std::string_view key, std::span<const std::byte> payload) const;

  [[nodiscard]] std::filesystem::path entry_path(std::string_view kind, std::string_view key) const;

 private:
  std::optional<std::filesystem::path> root_;
};

// A cache key: SHA-256 over the project version and every part, each length-prefixed.
[[nodiscard]] std::string make_cache_key(std::initializer_list<std::string_view> parts);

}  // namespace wavestack::runtime
