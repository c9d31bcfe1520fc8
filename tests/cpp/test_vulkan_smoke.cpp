// End-to-end checks of the compute layer on the selected device (lavapipe in CI): results
// are compared with a CPU reference on random data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>

#include "runtime/compute_context.hpp"
#include "runtime/error.hpp"
#include "runtime/selftest.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using namespace wavestack::runtime;

namespace {

fs::path fresh_cache_dir() {
  std::random_device random;
  fs::path path = fs::temp_directory_path() / ("wavestack-cache-" + std::to_string(random()));
  fs::remove_all(path);
  return path;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> distribution(-100.0F, 100.0F);
  std::vector<float> values(n);
  for (auto& value : values) value = distribution(engine);
  return values;
}

// Sums 256 values per workgroup in shared memory with a tree of barriers; partial sums of
// integers so the result is exact and order-independent.
constexpr const char* kReductionShader = R"glsl(#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { uint values[]; };
layout(std430, binding = 1) writeonly buffer Out { uint partial[]; };
layout(push_constant) uniform Push { uint n; } push;
shared uint tile[256];
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint local = gl_LocalInvocationID.x;
  tile[local] = i < push.n ? values[i] : 0u;
  barrier();
  for (uint stride = 128u; stride > 0u; stride >>= 1u) {
    if (local < stride) tile[local] += tile[local + stride];
    barrier();
  }
  if (local == 0u) partial[gl_WorkGroupID.x] = tile[0];
}
)glsl";

}  // namespace

TEST(VulkanSmoke, VectorAddMatchesCpu) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(fresh_cache_dir()));
  for (size_t n : {1UL, 63UL, 64UL, 1000UL, 100003UL}) {
    const auto a = random_floats(n, static_cast<uint32_t>(n));
    const auto b = random_floats(n, static_cast<uint32_t>(n + 1));
    const auto out = run_vector_add(context, a, b);
    ASSERT_EQ(out.size(), n);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], a[i] + b[i]) << "element " << i << " of " << n;
  }
}

TEST(VulkanSmoke, SharedMemoryReductionMatchesCpu) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(fresh_cache_dir()));
  const uint32_t n = 200000;
  std::mt19937 engine(7);
  std::vector<uint32_t> values(n);
  for (auto& value : values) value = static_cast<uint32_t>(engine() % 1000);
  const uint32_t groups = (n + 255) / 256;

  PipelineSpec spec;
  spec.buffer_count = 2;
  spec.push_constant_bytes = 4;
  ComputePipeline pipeline = context.create_pipeline(kReductionShader, spec);
  DeviceBuffer input = context.allocate(n * sizeof(uint32_t));
  DeviceBuffer partial = context.allocate(groups * sizeof(uint32_t));
  context.upload(input, std::as_bytes(std::span(values)));
  DeviceBuffer* buffers[] = {&input, &partial};
  context.dispatch(pipeline, buffers, std::as_bytes(std::span(&n, 1)), {groups, 1, 1});
  std::vector<uint32_t> sums(groups);
  context.download(partial, std::as_writable_bytes(std::span(sums)));

  for (uint32_t g = 0; g < groups; ++g) {
    const auto begin = values.begin() + g * 256;
    const auto end = values.begin() + std::min<uint32_t>(n, (g + 1) * 256);
    ASSERT_EQ(sums[g], std::accumulate(begin, end, 0U)) << "workgroup " << g;
  }
}

TEST(VulkanSmoke, SecondCompilationHitsTheDiskCache) {
  WAVESTACK_REQUIRE_DEVICE(device);
  const fs::path dir = fresh_cache_dir();
  PipelineSpec spec;
  spec.buffer_count = 3;
  spec.push_constant_bytes = 4;
  spec.specialization = {{0, 64}};
  {
    ComputeContext first(*device, DiskCache(dir));
    const ComputePipeline pipeline = first.create_pipeline(vector_add_shader_source(), spec);
    EXPECT_FALSE(pipeline.spirv_from_cache());
  }
  ASSERT_TRUE(fs::exists(dir / "spirv"));
  ASSERT_TRUE(fs::exists(dir / "pipeline-cache"));
  {
    // A new context (as in a new process) finds the SPIR-V on disk instead of recompiling.
    ComputeContext second(*device, DiskCache(dir));
    const ComputePipeline pipeline = second.create_pipeline(vector_add_shader_source(), spec);
    EXPECT_TRUE(pipeline.spirv_from_cache());
    EXPECT_TRUE(second.timings().spirv_from_cache);
  }
  fs::remove_all(dir);
}

TEST(VulkanSmoke, InvalidGlslNamesTheLine) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(std::nullopt));
  PipelineSpec spec;
  try {
    (void)context.create_pipeline("#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_name = 1; }\n",
                                  spec);
    FAIL() << "expected ShaderCompileError";
  } catch (const ShaderCompileError& error) {
    EXPECT_NE(std::string(error.what()).find("undefined_name"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(":3:"), std::string::npos) << error.what();
  }
}

TEST(VulkanSmoke, BadDispatchArgumentsAreRejectedBeforeWork) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(std::nullopt));
  PipelineSpec spec;
  spec.buffer_count = 3;
  spec.push_constant_bytes = 4;
  spec.specialization = {{0, 64}};
  ComputePipeline pipeline = context.create_pipeline(vector_add_shader_source(), spec);
  DeviceBuffer a = context.allocate(16);
  DeviceBuffer* too_few[] = {&a};
  const uint32_t n = 4;
  EXPECT_THROW(context.dispatch(pipeline, too_few, std::as_bytes(std::span(&n, 1)), {1, 1, 1}), InvalidArgument);
  EXPECT_THROW((void)context.allocate(0), InvalidArgument);
  std::vector<std::byte> big(32);
  EXPECT_THROW(context.upload(a, big), InvalidArgument);
  EXPECT_EQ(context.timings().dispatch_ms, 0.0);
}

TEST(VulkanErrors, NameTheFailingCallAndTheResult) {
  const VulkanError error("vkAllocateMemory", -2);  // VK_ERROR_OUT_OF_DEVICE_MEMORY
  EXPECT_EQ(error.call(), "vkAllocateMemory");
  EXPECT_EQ(error.result(), -2);
  EXPECT_STREQ(error.what(), "vkAllocateMemory failed with VK_ERROR_OUT_OF_DEVICE_MEMORY");
}

// Dispatch i of a sequence adds 10 * i to what dispatch i - 1 wrote (each sees the ones before
// it), after a clear of the first four words: one submission and one fence wait in all.
TEST(VulkanSmoke, DispatchSequenceRunsInOrderInOneSubmission) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(std::nullopt));
  PipelineSpec spec;
  spec.buffer_count = 1;
  spec.push_constant_bytes = 4;
  const ComputePipeline pipeline = context.create_pipeline(R"glsl(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Words { uint words[]; };
layout(push_constant) uniform Push { uint index; } push;
void main() {
  if (gl_GlobalInvocationID.x == 0u) words[push.index] = words[push.index - 1u] + 10u * push.index;
}
)glsl",
                                                           spec);
  DeviceBuffer words = context.allocate(8 * sizeof(uint32_t));
  const std::vector<uint32_t> sevens(8, 7U);
  context.upload(words, std::as_bytes(std::span(sevens)));
  DeviceBuffer* buffers[] = {&words};
  const uint32_t pushes[] = {1, 2, 3};
  std::vector<uint32_t> out(4, 99U);
  const BufferSlice first_four{&words, 0, 16};
  const PhaseTimings before = context.timings();
  context.dispatch_sequence(pipeline, buffers, std::as_bytes(std::span(pushes)), {1, 1, 1}, 3, first_four, first_four,
                            std::as_writable_bytes(std::span(out)));
  EXPECT_EQ(out, (std::vector<uint32_t>{0, 10, 30, 60}));
  EXPECT_EQ(context.timings().submits - before.submits, 1U);
  EXPECT_EQ(context.timings().fence_waits - before.fence_waits, 1U);
  EXPECT_EQ(context.timings().bytes_downloaded - before.bytes_downloaded, 16U);
  std::vector<uint32_t> all(8);
  context.download(words, std::as_writable_bytes(std::span(all)));
  EXPECT_EQ(all, (std::vector<uint32_t>{0, 10, 30, 60, 7, 7, 7, 7}));  // the clear is bounded

  const auto push_bytes = std::as_bytes(std::span(pushes));
  const auto out_bytes = std::as_writable_bytes(std::span(out));
  EXPECT_THROW(context.dispatch_sequence(pipeline, buffers, push_bytes, {1, 1, 1}, 0, {}, {}, {}), InvalidArgument);
  EXPECT_THROW(context.dispatch_sequence(pipeline, buffers, push_bytes, {1, 1, 1}, 2, {}, {}, {}), InvalidArgument);
  EXPECT_THROW(
      context.dispatch_sequence(pipeline, buffers, push_bytes, {1, 1, 1}, 3, BufferSlice{&words, 2, 4}, {}, {}),
      InvalidArgument);
  EXPECT_THROW(context.dispatch_sequence(pipeline, buffers, push_bytes, {1, 1, 1}, 3, {}, BufferSlice{&words, 16, 32},
                                         out_bytes),
               InvalidArgument);
  EXPECT_THROW(
      context.dispatch_sequence(pipeline, buffers, push_bytes, {1, 1, 1}, 3, {}, BufferSlice{&words, 0, 8}, out_bytes),
      InvalidArgument);
}

// A sequence of several pipelines (compiled mode's step: the host's call, units, the outcome
// shader) runs them in order, each seeing the writes before it, in one submission; the
// pipelines are checked before anything is submitted.
TEST(VulkanSmoke, DispatchSequenceOfSeveralPipelinesRunsEachInOrder) {
  WAVESTACK_REQUIRE_DEVICE(device);
  ComputeContext context(*device, DiskCache(std::nullopt));
  PipelineSpec spec;
  spec.buffer_count = 1;
  spec.push_constant_bytes = 4;
  const auto step = [&](const char* operation) {
    return context.create_pipeline(std::string(R"glsl(#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Words { uint words[]; };
layout(push_constant) uniform Push { uint index; } push;
void main() {
  if (gl_GlobalInvocationID.x == 0u) words[push.index] = words[push.index - 1u] )glsl") +
                                       operation + R"glsl(;
}
)glsl",
                                   spec);
  };
  const ComputePipeline add = step("+ 5u");
  const ComputePipeline times = step("* 3u");
  DeviceBuffer words = context.allocate(8 * sizeof(uint32_t));
  const std::vector<uint32_t> twos(8, 2U);
  context.upload(words, std::as_bytes(std::span(twos)));
  DeviceBuffer* buffers[] = {&words};
  const ComputePipeline* order[] = {&add, &times, &times, &add};
  const uint32_t pushes[] = {1, 2, 3, 4};
  std::vector<uint32_t> out(5);
  const BufferSlice first_five{&words, 0, 20};
  const PhaseTimings before = context.timings();
  context.dispatch_sequence(order, buffers, std::as_bytes(std::span(pushes)), {1, 1, 1}, {}, first_five,
                            std::as_writable_bytes(std::span(out)));
  EXPECT_EQ(out, (std::vector<uint32_t>{2, 7, 21, 63, 68}));
  EXPECT_EQ(context.timings().submits - before.submits, 1U);
  EXPECT_EQ(context.timings().fence_waits - before.fence_waits, 1U);

  const ComputePipeline* with_null[] = {&add, nullptr};
  EXPECT_THROW(
      context.dispatch_sequence(with_null, buffers, std::as_bytes(std::span(pushes).first(2)), {1, 1, 1}, {}, {}, {}),
      InvalidArgument);
  EXPECT_THROW(context.dispatch_sequence(std::span<const ComputePipeline* const>(), buffers, {}, {1, 1, 1}, {}, {}, {}),
               InvalidArgument);
  std::vector<uint32_t> all(8);
  context.download(words, std::as_writable_bytes(std::span(all)));
  EXPECT_EQ(all, (std::vector<uint32_t>{2, 7, 21, 63, 68, 2, 2, 2}));  // the refused sequences ran nothing
}
