// The interpreter shader compiles with glslang (no device needed), from the same files the
// cpu device compiles as C++, and needs neither shaderInt64 nor shaderFloat64.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "runtime/disk_cache.hpp"
#include "runtime/shader_compiler.hpp"
#include "wasm/device/interpreter_glsl.hpp"

namespace {

using namespace wavestack;

TEST(WasmInterpreterShader, CompilesWithoutInt64OrFloat64) {
  runtime::ShaderOptions options;
  options.target = runtime::VulkanTarget::Vulkan1_1;
  const std::string source = wasm::device::interpreter_shader_source();
  const runtime::ShaderBinary binary =
      runtime::compile_compute_shader(source, options, runtime::DiskCache(std::nullopt), "wasm-interpreter");
  constexpr std::uint32_t kOpCapability = 17;
  constexpr std::uint32_t kCapabilityFloat64 = 10;
  constexpr std::uint32_t kCapabilityInt64 = 11;
  std::vector<std::uint32_t> capabilities;
  for (std::size_t i = 5; i < binary.words.size();) {
    const std::uint32_t word_count = binary.words[i] >> 16;
    if ((binary.words[i] & 0xFFFFu) == kOpCapability) capabilities.push_back(binary.words[i + 1]);
    ASSERT_GT(word_count, 0u);
    i += word_count;
  }
  ASSERT_FALSE(capabilities.empty());
  for (std::uint32_t capability : capabilities) {
    EXPECT_NE(capability, kCapabilityFloat64);
    EXPECT_NE(capability, kCapabilityInt64);
  }
}

TEST(WasmInterpreterShader, ContainsTheSharedDeviceFiles) {
  const std::string source = wasm::device::interpreter_shader_source();
  for (const char* marker :
       {"uint interp_run(uint quantum, uint budget)", "uvec2 wasm_numeric(", "void bulk_table_grow(",
        "void bulk_memory_copy(", "const uint H_STACK_SLOTS", "void main()"}) {
    EXPECT_NE(source.find(marker), std::string::npos) << marker;
  }
}

}  // namespace
