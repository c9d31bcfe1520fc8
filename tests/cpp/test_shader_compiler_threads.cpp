// The shader compiler runs glslang on several threads at once (builds ahead of need and a
// precompile's workers compile unit shaders concurrently): each thread's SPIR-V must be the
// words a compilation on its own gives, and a broken shader must fail only its own compilation.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "runtime/disk_cache.hpp"
#include "runtime/error.hpp"
#include "runtime/shader_compiler.hpp"

namespace {

using namespace wavestack::runtime;

// A shader of some size whose code depends on `seed` (loops, calls and constants differ).
std::string shader_text(int seed) {
  std::string text =
      "#version 450\nlayout(local_size_x = 64) in;\n"
      "layout(std430, binding = 0) buffer Words { uint words[]; } data;\n";
  for (int f = 0; f < 12; ++f) {
    text += "uint step" + std::to_string(f) + "(uint x) { uint a = x;\n";
    text += "  for (uint i = 0u; i < " + std::to_string(3 + (seed + f) % 5) + "u; i++) { a = a * " +
            std::to_string(2 * seed + f + 3) + "u + i; if ((a & 1u) == 0u) a ^= " + std::to_string(seed * 31 + f) +
            "u; }\n  return a; }\n";
  }
  text += "void main() { uint x = data.words[gl_GlobalInvocationID.x];\n";
  for (int f = 0; f < 12; ++f) text += "  x = step" + std::to_string(f) + "(x);\n";
  text += "  data.words[gl_GlobalInvocationID.x] = x; }\n";
  return text;
}

TEST(ShaderCompilerThreads, ConcurrentCompilationsGiveTheWordsOfSerialOnes) {
  constexpr int kShaders = 16;
  constexpr int kThreads = 4;
  ShaderOptions options;
  options.optimize = false;
  const DiskCache no_cache(std::nullopt);
  std::vector<std::vector<std::uint32_t>> serial;
  serial.reserve(kShaders);
  for (int k = 0; k < kShaders; ++k)
    serial.push_back(compile_compute_shader(shader_text(k), options, no_cache, "t").words);
  for (int k = 1; k < kShaders; ++k) ASSERT_NE(serial[k], serial[0]);  // the shaders differ

  for (int round = 0; round < 3; ++round) {
    std::vector<std::vector<std::uint32_t>> concurrent(kShaders);
    std::vector<int> failures(kShaders, 0);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int k = t; k < kShaders; k += kThreads) {
          concurrent[k] = compile_compute_shader(shader_text(k), options, no_cache, "t").words;
          // A shader that does not compile, between the others: only it fails.
          try {
            (void)compile_compute_shader("#version 450\nvoid main() { undeclared = 1; }\n", options, no_cache, "t");
          } catch (const ShaderCompileError&) {
            ++failures[k];
          }
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (int k = 0; k < kShaders; ++k) {
      EXPECT_EQ(concurrent[k], serial[k]) << "shader " << k << ", round " << round;
      EXPECT_EQ(failures[k], 1) << "shader " << k;
    }
  }
}

}  // namespace
