#include "runtime/shader_compiler.hpp"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <chrono>
#include <cstring>
#include <mutex>

#include "runtime/error.hpp"
#include "runtime/spirv_aliasing.hpp"

namespace wavestack::runtime {
namespace {

struct GlslangTarget {
  glslang::EShTargetClientVersion client;
  glslang::EShTargetLanguageVersion spirv;
  const char* name;
};

GlslangTarget glslang_target(VulkanTarget target) {
  switch (target) {
    case VulkanTarget::Vulkan1_3:
      return {glslang::EShTargetVulkan_1_3, glslang::EShTargetSpv_1_6, "vulkan1.3"};
    case VulkanTarget::Vulkan1_2:
      return {glslang::EShTargetVulkan_1_2, glslang::EShTargetSpv_1_5, "vulkan1.2"};
    case VulkanTarget::Vulkan1_1:
      break;
  }
  return {glslang::EShTargetVulkan_1_1, glslang::EShTargetSpv_1_3, "vulkan1.1"};
}

// glslang keeps process-wide tables, initialised once (its built-in symbol tables are then
// set up under its own lock); each compilation has its own shader, program and thread's pool
// allocator, so threads compile at once (glslangValidator's multi-threaded mode does the same).
// Unit pipelines built ahead of need and a precompile's workers rely on that
// (tests/cpp/test_shader_compiler_threads.cpp).
void ensure_glslang_initialized() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

std::string build_preamble(const ShaderOptions& options) {
  std::string preamble;
  for (const auto& [name, value] : options.defines) preamble += "#define " + name + " " + value + "\n";
  return preamble;
}

std::vector<uint32_t> run_glslang(std::string_view source, const ShaderOptions& options) {
  ensure_glslang_initialized();
  const GlslangTarget target = glslang_target(options.target);
  const std::string preamble = build_preamble(options);

  glslang::TShader shader(EShLangCompute);
  const char* text = source.data();
  const int length = static_cast<int>(source.size());
  const char* name = "kernel.comp";
  shader.setStringsWithLengthsAndNames(&text, &length, &name, 1);
  shader.setPreamble(preamble.c_str());
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, target.client);
  shader.setEnvTarget(glslang::EShTargetSpv, target.spirv);
  const auto messages = static_cast<EShMessages>(EShMsgSpvRules | EShMsgVulkanRules);
  if (!shader.parse(GetDefaultResources(), 450, false, messages)) {
    throw ShaderCompileError(std::string(shader.getInfoLog()) + shader.getInfoDebugLog());
  }
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) {
    throw ShaderCompileError(std::string(program.getInfoLog()) + program.getInfoDebugLog());
  }
  glslang::SpvOptions spv_options;
  spv_options.disableOptimizer = !options.optimize;
  spv_options.validate = true;
  spv::SpvBuildLogger logger;
  std::vector<unsigned int> words;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), words, &logger, &spv_options);
  const std::string log = logger.getAllMessages();
  if (words.empty()) throw ShaderCompileError("SPIR-V generation produced no code\n" + log);
  std::vector<uint32_t> binary(words.begin(), words.end());
  mark_shared_bindings_aliased(binary);  // (glslang leaves GLSL's aliasing rule out)
  return binary;
}

}  // namespace

VulkanTarget vulkan_target_for_api(uint32_t api_version) {
  const uint32_t major = api_version >> 22U;
  const uint32_t minor = (api_version >> 12U) & 0x3FFU;
  if (major > 1 || minor >= 3) return VulkanTarget::Vulkan1_3;
  if (minor == 2) return VulkanTarget::Vulkan1_2;
  return VulkanTarget::Vulkan1_1;
}

ShaderBinary compile_compute_shader(std::string_view source, const ShaderOptions& options, const DiskCache& cache,
                                    std::string_view identity) {
  const auto start = std::chrono::steady_clock::now();
  ShaderBinary binary;
  // ("aliased": SPIR-V cached before the shared bindings were marked Aliased is not used.)
  binary.cache_key = make_cache_key({"spirv-aliased", glslang_target(options.target).name,
                                     options.optimize ? "opt" : "noopt", build_preamble(options), source, identity});
  if (auto cached = cache.load("spirv", binary.cache_key); cached && !cached->empty() && cached->size() % 4 == 0) {
    binary.words.resize(cached->size() / 4);
    std::memcpy(binary.words.data(), cached->data(), cached->size());
    binary.from_cache = true;
  } else {
    binary.words = run_glslang(source, options);
    cache.store("spirv", binary.cache_key, std::as_bytes(std::span(binary.words)));
  }
  binary.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return binary;
}

}  // namespace wavestack::runtime
