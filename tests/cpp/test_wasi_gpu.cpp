// Differential test of the WASI library on the selected Vulkan device (lavapipe in CI): the
// same sequence of calls (wasi_gpu_steps.glsl) runs in a compute shader, one invocation per
// instance and one resumable piece per dispatch, and in the C++ build; every result, the whole
// region and the whole guest memory of every instance must be equal. Skips without a device,
// fails under WAVESTACK_REQUIRE_GPU=1.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "runtime/compute_context.hpp"
#include "runtime/shader_compiler.hpp"
#include "test_support.hpp"
#include "wasi_test/wasi_gpu_steps_glsl.hpp"
#include "wasi_test_harness.hpp"
#include "wasm/device/numerics_glsl.hpp"
#include "wasm/device/wasi_glsl.hpp"

namespace wavestack::wasm::device {
namespace {
#include "wasi_gpu_steps.glsl"
}  // namespace
}  // namespace wavestack::wasm::device

namespace wavestack::wasi_test {
namespace {

constexpr uint kInstances = 4;
constexpr uint kMemoryBytes = 65536;
constexpr uint kBudget = 256;
constexpr uint kNow = 123456;

wasm::WasiConfig gpu_config() {
  wasm::WasiConfig config;
  config.args = {"prog", "--flag", "value with spaces"};
  config.env = {"HOME=/", "LANG=C.UTF-8"};
  config.stdin_bytes = "stdin bytes";
  config.files = {{"dir/a", "alpha"}, {"dir/b", std::string(300, 'b')}, {"top.txt", "top"}};
  config.seed = 77u;
  config.preopen = ".";
  return config;
}

// The arguments wasi_gpu_steps.glsl expects in guest memory.
void prepare(Guest& g) {
  std::string data(4500, '\0');
  for (std::size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>('a' + (k * 7) % 26);
  g.put(0x2000, data.substr(0, 3000));
  g.put(0x3000, data.substr(3000));
  auto iovec = [&](uint at, uint buf, uint len) {
    g.put_u32(at, buf);
    g.put_u32(at + 4, len);
  };
  iovec(0x100, 0x2000, 3000);
  iovec(0x108, 0x2000, 0);
  iovec(0x110, 0x3000, 1500);
  iovec(0x140, 0x5000, 1000);
  iovec(0x148, 0x6000, 4000);
  g.put(0x200, "dir/file");
  g.put(0x240, "dir/moved");
  g.put(0x280, "moved");
  g.put(0x2C0, "dir/ln");
  g.put(0x300, "dir/sub");
  for (uint i = 0; i < 3; ++i) {  // a clock in 500 ns, fd_read on stdin, fd_write on stdout
    const uint at = 0x400 + 48 * i;
    g.put_u32(at, 100 + i);
    g.put(at + 8, std::string(1, static_cast<char>(i)));
    g.put_u32(at + 16, i == 0 ? 1u : i - 1);
    g.put_u32(at + 24, i == 0 ? 500u : 0u);
  }
}

struct GuestRun {
  std::vector<std::uint32_t> region;
  std::vector<std::uint32_t> memory;
  std::vector<uint> results;
};

GuestRun run_cpp(uint instance) {
  Guest g(gpu_config(), kMemoryBytes, kBudget);
  wasm::set_wasi_instance(g.region, instance);
  prepare(g);
  g.now = uvec2(kNow, 0u);
  GuestRun run;
  for (uint step = 0; step < dev::WASI_TEST_STEPS; ++step) {
    run.results.push_back(g.run([&](uint b, uint& p) { return dev::wasi_test_step(step, g.now, b, p); }));
  }
  run.region = g.region;
  run.memory = g.memory;
  return run;
}

const char* const kShaderAccessors = R"glsl(
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint WASI_TEST_STEP = 0u;  // one pipeline per step
layout(std430, binding = 0) buffer RegionBuffer { uint region_words[]; };
layout(std430, binding = 1) buffer MemoryBuffer { uint guest_words[]; };
layout(std430, binding = 2) buffer StateBuffer { uint state_words[]; };  // progress, result, done per instance
layout(push_constant) uniform Push { uint step; uint budget; uint region_stride; uint memory_stride; uint now_lo; uint count; } pc;
uint region_base = 0u;
uint guest_base = 0u;
uint wasi_get(uint w) { return region_words[region_base + w]; }
void wasi_set(uint w, uint v) { region_words[region_base + w] = v; }
uint memory_size_bytes() { return pc.memory_stride * 4u; }
uint memory_byte(uint addr) { return (guest_words[guest_base + (addr >> 2u)] >> ((addr & 3u) * 8u)) & 0xFFu; }
void memory_set_byte(uint addr, uint v) {
  uint w = guest_base + (addr >> 2u);
  uint shift = (addr & 3u) * 8u;
  guest_words[w] = (guest_words[w] & ~(0xFFu << shift)) | ((v & 0xFFu) << shift);
}
)glsl";

const char* const kShaderMain = R"glsl(
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count || state_words[3u * i + 2u] != 0u) return;
  region_base = i * pc.region_stride;
  guest_base = i * pc.memory_stride;
  uint progress = state_words[3u * i];
  uint r = wasi_test_step(WASI_TEST_STEP, uvec2(pc.now_lo, 0u), pc.budget, progress);
  state_words[3u * i] = progress;
  if (r != WASI_AGAIN) {
    state_words[3u * i + 1u] = r;
    state_words[3u * i + 2u] = 1u;
  }
}
)glsl";

struct TemporaryDirectory {
  explicit TemporaryDirectory(std::filesystem::path dir) : path(std::move(dir)) {}
  std::filesystem::path path;
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

TEST(WasiGpu, StepsMatchTheCppBuild) {
  WAVESTACK_REQUIRE_DEVICE(device_info);
  std::vector<GuestRun> expected;
  for (uint i = 0; i < kInstances; ++i) expected.push_back(run_cpp(i));

  // One pipeline per step, WASI_TEST_STEP a specialization constant (so each pipeline keeps only
  // that step's call; a shader with all the calls inlined takes lavapipe minutes to compile
  // cold, one call a fraction of a second). glslang runs once: the SPIR-V cache (a temporary
  // directory) serves the other 25.
  const std::filesystem::path cache_dir =
      std::filesystem::temp_directory_path() / ("wasi-gpu-test-" + std::to_string(::getpid()));
  const TemporaryDirectory cache_guard(cache_dir);  // removed after the context saved into it
  runtime::ComputeContext context(*device_info, runtime::DiskCache(cache_dir));
  const std::string source = "#version 450\n" + wasm::device::numerics_glsl() + kShaderAccessors +
                             wasm::device::wasi_glsl() + std::string(glsl::wasi_gpu_steps) + kShaderMain;
  const auto compile_start = std::chrono::steady_clock::now();
  std::vector<runtime::ComputePipeline> pipelines;
  for (uint step = 0; step < dev::WASI_TEST_STEPS; ++step) {
    runtime::PipelineSpec spec;
    spec.buffer_count = 3;
    spec.push_constant_bytes = 24;
    spec.shader.target = runtime::VulkanTarget::Vulkan1_1;
    spec.shader.optimize = false;
    spec.specialization = {{0u, step}};
    pipelines.push_back(context.create_pipeline(source, spec));
  }
  const double compile_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - compile_start).count();

  // Initial state: the same images the C++ runs started from.
  const std::vector<std::uint32_t> image = wasm::build_wasi_region(gpu_config()).to_vector();
  const auto region_words = static_cast<uint>(image.size());
  std::vector<std::uint32_t> regions;
  std::vector<std::uint32_t> memories;
  for (uint i = 0; i < kInstances; ++i) {
    std::vector<std::uint32_t> region = image;
    wasm::set_wasi_instance(region, i);
    regions.insert(regions.end(), region.begin(), region.end());
    Guest g(gpu_config(), kMemoryBytes);
    prepare(g);
    memories.insert(memories.end(), g.memory.begin(), g.memory.end());
  }
  runtime::DeviceBuffer region_buffer = context.allocate(regions.size() * 4);
  runtime::DeviceBuffer memory_buffer = context.allocate(memories.size() * 4);
  runtime::DeviceBuffer state_buffer = context.allocate(kInstances * 3 * 4);
  context.upload(region_buffer, std::as_bytes(std::span(regions)));
  context.upload(memory_buffer, std::as_bytes(std::span(memories)));
  runtime::DeviceBuffer* buffers[] = {&region_buffer, &memory_buffer, &state_buffer};

  const auto run_start = std::chrono::steady_clock::now();
  std::vector<std::vector<uint>> results(kInstances);
  std::size_t dispatches = 0;
  for (uint step = 0; step < dev::WASI_TEST_STEPS; ++step) {
    context.fill_zero(state_buffer);
    std::vector<std::uint32_t> state(kInstances * 3, 0u);
    for (int round = 0; round < 100'000; ++round) {
      const std::array<uint, 6> push = {step, kBudget, region_words, kMemoryBytes / 4, kNow, kInstances};
      context.dispatch(pipelines[step], buffers, std::as_bytes(std::span(push)), {1, 1, 1});
      ++dispatches;
      context.download(state_buffer, std::as_writable_bytes(std::span(state)));
      bool done = true;
      for (uint i = 0; i < kInstances; ++i) done = done && state[3 * i + 2] != 0;
      if (done) break;
    }
    for (uint i = 0; i < kInstances; ++i) results[i].push_back(state[3 * i + 1]);
  }
  context.download(region_buffer, std::as_writable_bytes(std::span(regions)));
  context.download(memory_buffer, std::as_writable_bytes(std::span(memories)));
  for (uint i = 0; i < kInstances; ++i) {
    EXPECT_EQ(results[i], expected[i].results) << "instance " << i;
    const std::vector<std::uint32_t> region(regions.begin() + static_cast<std::ptrdiff_t>(i) * region_words,
                                            regions.begin() + static_cast<std::ptrdiff_t>(i + 1) * region_words);
    const std::vector<std::uint32_t> memory(memories.begin() + static_cast<std::ptrdiff_t>(i) * (kMemoryBytes / 4),
                                            memories.begin() + static_cast<std::ptrdiff_t>(i + 1) * (kMemoryBytes / 4));
    std::size_t region_diffs = 0;
    for (std::size_t w = 0; w < region.size(); ++w) region_diffs += region[w] != expected[i].region[w] ? 1 : 0;
    std::size_t memory_diffs = 0;
    for (std::size_t w = 0; w < memory.size(); ++w) memory_diffs += memory[w] != expected[i].memory[w] ? 1 : 0;
    EXPECT_EQ(region_diffs, 0u) << "instance " << i;
    EXPECT_EQ(memory_diffs, 0u) << "instance " << i;
  }
  // The steps did real work: spot checks of the C++ results themselves.
  EXPECT_EQ(expected[0].results[0], 0u);                      // created dir/file as fd 4
  EXPECT_EQ(expected[0].results[8], 0u);                      // renamed
  EXPECT_EQ(expected[0].results[23], dev::WASI_ERRNO_NOENT);  // the symlink's target was unlinked
  EXPECT_EQ(expected[0].results[25], dev::WASI_STATUS_EXIT);
  EXPECT_NE(expected[0].memory[0x8000 / 4], expected[1].memory[0x8000 / 4]);  // per-instance random streams
  std::printf("[ wasi gpu ] %u steps x %u instances on %s: pipelines %.1f s, %zu dispatches in %.1f s\n",
              dev::WASI_TEST_STEPS, kInstances, device_info->name.c_str(), compile_s, dispatches,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count());
}

}  // namespace
}  // namespace wavestack::wasi_test
