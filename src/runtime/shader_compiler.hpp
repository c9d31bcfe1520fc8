// GLSL compute source to SPIR-V, in process with glslang, cached on disk.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/disk_cache.hpp"

namespace wavestack::runtime {

enum class VulkanTarget { Vulkan1_1, Vulkan1_2, Vulkan1_3 };

struct ShaderOptions {
  // Emitted as `#define NAME VALUE` lines before the source (after its #version line).
  std::vector<std::pair<std::string, std::string>> defines;
  VulkanTarget target = VulkanTarget::Vulkan1_1;
  // Passed through glslang's SPIR-V optimizer; off makes compilation faster.
  bool optimize = true;
};

struct ShaderBinary {
  std::vector<uint32_t> words;
  bool from_cache = false;
  double compile_ms = 0.0;  // time spent producing the words (including the cache lookup)
  std::string cache_key;
};

// The target the device supports best, capped at what this build knows.
[[nodiscard]] VulkanTarget vulkan_target_for_api(uint32_t api_version);

// Compiles `source` (a complete GLSL 4.50 compute shader with its own #version line).
// `identity` goes into the cache key; pass the device's cache_identity(). Throws
// ShaderCompileError with glslang's log on invalid source.
[[nodiscard]] ShaderBinary compile_compute_shader(std::string_view source, const ShaderOptions& options,
                                                  const DiskCache& cache, std::string_view identity);

}  // namespace wavestack::runtime
