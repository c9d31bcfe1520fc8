// Buffers sharing a binding are marked Aliased in the SPIR-V the shader compiler makes (GLSL's
// aliasing rule, which glslang leaves out): checked on the decorations themselves, and by
// running a shader that writes through one view and reads through another.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/compute_context.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/shader_compiler.hpp"
#include "runtime/spirv_aliasing.hpp"
#include "test_support.hpp"

namespace {

using namespace wavestack::runtime;

constexpr const char* kViews = R"glsl(#version 450
layout(local_size_x = 1) in;
layout(std430, binding = 0) buffer Words { uint words[]; } as_words;
layout(std430, binding = 0) buffer Pairs { uvec2 pairs[]; } as_pairs;
layout(std430, binding = 1) buffer Other { uint other[]; } alone;
layout(std430, binding = 2) restrict buffer Kept { uint kept[]; } restricted;
layout(std430, binding = 2) buffer Shared { uint shared_words[]; } beside_restricted;
void main() {
  as_words.words[2] = 7u;
  as_words.words[3] = 9u;
  uvec2 pair = as_pairs.pairs[1];  // words 2 and 3, just written through the other view
  alone.other[0] = pair.x * 100u + pair.y;
  restricted.kept[0] = beside_restricted.shared_words[1];
}
)glsl";

// The names of the variables decorated Aliased (glslang names each after its instance name).
std::set<std::string> aliased_names(const std::vector<uint32_t>& words) {
  std::map<uint32_t, std::string> names;
  std::set<uint32_t> aliased;
  for (std::size_t at = 5; at < words.size();) {
    const uint32_t count = words[at] >> 16U;
    const uint32_t opcode = words[at] & 0xFFFFU;
    if (opcode == 5) {  // OpName
      names[words[at + 1]] = std::string(reinterpret_cast<const char*>(&words[at + 2]));
    }
    if (opcode == 71 && words[at + 2] == 20) aliased.insert(words[at + 1]);  // OpDecorate Aliased
    at += count;
  }
  std::set<std::string> found;
  for (const uint32_t id : aliased) found.insert(names[id]);
  return found;
}

// A block declared `restrict` is marked too when it shares its binding: glslang puts its
// Restrict on the block's member, not on the variable, and Aliased is the safe side.
TEST(SpirvAliasing, VariablesSharingABindingAreAliased) {
  ShaderOptions options;
  options.optimize = false;
  const ShaderBinary binary = compile_compute_shader(kViews, options, DiskCache(std::nullopt), "aliasing-tests");
  EXPECT_EQ(aliased_names(binary.words),
            (std::set<std::string>{"as_words", "as_pairs", "restricted", "beside_restricted"}));
  // Idempotent: nothing is added twice.
  std::vector<uint32_t> again = binary.words;
  EXPECT_EQ(mark_shared_bindings_aliased(again), 0U);
  EXPECT_EQ(again, binary.words);
  std::vector<uint32_t> not_spirv{1, 2, 3, 4, 5, 6};
  EXPECT_THROW(mark_shared_bindings_aliased(not_spirv), std::invalid_argument);
  std::vector<uint32_t> truncated(binary.words.begin(), binary.words.begin() + 7);
  truncated[5] = (40U << 16U) | 17U;  // an instruction longer than what is left
  EXPECT_THROW(mark_shared_bindings_aliased(truncated), std::invalid_argument);
}

TEST(SpirvAliasing, ADriverRunsTheMarkedShader) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(std::nullopt));
  PipelineSpec spec;
  spec.buffer_count = 3;
  const ComputePipeline pipeline = context.create_pipeline(kViews, spec);
  DeviceBuffer words = context.allocate(16);
  DeviceBuffer other = context.allocate(4);
  DeviceBuffer kept = context.allocate(8);
  const std::vector<uint32_t> kept_words{5, 6};
  context.upload(kept, std::as_bytes(std::span(kept_words)));
  DeviceBuffer* buffers[] = {&words, &other, &kept};
  context.dispatch(pipeline, buffers, {}, {1, 1, 1});
  std::vector<uint32_t> result(1);
  context.download(other, std::as_writable_bytes(std::span(result)));
  EXPECT_EQ(result[0], 709U);
  context.download(kept, std::as_writable_bytes(std::span(result)));
  EXPECT_EQ(result[0], 6U);
}

}  // namespace
