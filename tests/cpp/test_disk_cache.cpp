#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "runtime/disk_cache.hpp"

namespace fs = std::filesystem;
using wavestack::runtime::DiskCache;
using wavestack::runtime::make_cache_key;

namespace {

class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = fs::temp_directory_path() / ("wavestack-test-" + std::to_string(random()) + std::to_string(random()));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::byte> bytes_of(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  for (size_t i = 0; i < text.size(); ++i) bytes[i] = static_cast<std::byte>(text[i]);
  return bytes;
}

}  // namespace

TEST(DiskCache, StoresAndLoadsExactBytes) {
  TempDir dir;
  DiskCache cache(dir.path());
  const auto payload = bytes_of(std::string("spirv\0words", 11));
  ASSERT_TRUE(cache.store("spirv", "k1", payload));
  const auto loaded = cache.load("spirv", "k1");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, payload);
  EXPECT_FALSE(cache.load("spirv", "missing").has_value());
  EXPECT_FALSE(cache.load("other-kind", "k1").has_value());
}

TEST(DiskCache, CorruptEntryIsAMissAndIsRemoved) {
  TempDir dir;
  DiskCache cache(dir.path());
  ASSERT_TRUE(cache.store("spirv", "k", bytes_of("payload bytes")));
  const fs::path path = cache.entry_path("spirv", "k");
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('X');  // flip the last payload byte
  }
  EXPECT_FALSE(cache.load("spirv", "k").has_value());
  EXPECT_FALSE(fs::exists(path));
}

TEST(DiskCache, TruncatedEntryIsAMiss) {
  TempDir dir;
  DiskCache cache(dir.path());
  ASSERT_TRUE(cache.store("spirv", "k", bytes_of("payload bytes")));
  fs::resize_file(cache.entry_path("spirv", "k"), 20);
  EXPECT_FALSE(cache.load("spirv", "k").has_value());
}

TEST(DiskCache, ConcurrentWritersLeaveOneCompleteEntryAndNoTemporaries) {
  TempDir dir;
  DiskCache cache(dir.path());
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&cache, t] {
      const std::string text(4096, static_cast<char>('a' + t));
      for (int i = 0; i < 20; ++i) cache.store("spirv", "shared", bytes_of(text));
    });
  }
  for (auto& writer : writers) writer.join();
  const auto loaded = cache.load("spirv", "shared");
  ASSERT_TRUE(loaded.has_value());
  ASSERT_EQ(loaded->size(), 4096U);
  for (std::byte b : *loaded) ASSERT_EQ(b, (*loaded)[0]);  // one writer's content, never a mix
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir.path() / "spirv")) {
    ++files;
    EXPECT_EQ(entry.path().extension(), ".bin");
  }
  EXPECT_EQ(files, 1);
}

TEST(DiskCache, UnwritableRootDegradesToMiss) {
  DiskCache cache(fs::path("/proc/wavestack-cannot-write-here"));
  EXPECT_FALSE(cache.store("spirv", "k", bytes_of("x")));
  EXPECT_FALSE(cache.load("spirv", "k").has_value());
  DiskCache disabled(std::nullopt);
  EXPECT_FALSE(disabled.enabled());
  EXPECT_FALSE(disabled.store("spirv", "k", bytes_of("x")));
}

TEST(DiskCache, KeysDependOnEveryPart) {
  EXPECT_EQ(make_cache_key({"a", "b"}), make_cache_key({"a", "b"}));
  EXPECT_NE(make_cache_key({"a", "b"}), make_cache_key({"a", "c"}));
  EXPECT_NE(make_cache_key({"ab", ""}), make_cache_key({"a", "b"}));
  EXPECT_EQ(make_cache_key({"x"}).size(), 64U);
}
