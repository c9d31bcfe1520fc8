// Where the build time of compiled-mode unit pipelines goes on a Vulkan driver: for each GLSL
// file given (a unit's shader: bench/wasm_unit_pipelines.py writes them), the processor time
// glslang takes to make SPIR-V, and the time the driver takes to make a pipeline of it and run
// one empty dispatch (lavapipe compiles at the first dispatch). Our disk cache is not used.
//
//   wasm_unit_pipelines [--allow-software] unit1.glsl unit2.glsl ...
//
// Prints one line per file: glslang ms, driver ms (processor time), SPIR-V words. Mesa keeps
// a disk cache of its own: set MESA_SHADER_CACHE_DISABLE=true to measure cold builds.
#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/compute_context.hpp"
#include "runtime/device_discovery.hpp"
#include "runtime/shader_compiler.hpp"
#include "wasm/instances/vulkan_device.hpp"

namespace {

// Processor time of the whole process (the driver may compile on threads of its own): on a
// shared machine it varies far less than the wall-clock time.
double cpu_milliseconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return 1e3 * static_cast<double>(now.tv_sec) + 1e-6 * static_cast<double>(now.tv_nsec);
}

std::string read_text(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wavestack;
  bool allow_software = false;
  std::vector<const char*> files;
  for (int k = 1; k < argc; ++k) {
    if (std::strcmp(argv[k], "--allow-software") == 0) {
      allow_software = true;
    } else {
      files.push_back(argv[k]);
    }
  }
  const auto device = runtime::select_device(allow_software);
  if (!device) {
    std::fprintf(stderr, "no Vulkan device (pass --allow-software for lavapipe)\n");
    return 1;
  }
  const runtime::DiskCache no_cache(std::nullopt);
  runtime::ComputeContext context(*device, no_cache);
  // The unit pipelines' interface, as wasm::VulkanDevice builds them.
  runtime::PipelineSpec spec;
  spec.buffer_count = 5;
  spec.push_constant_bytes = wasm::VulkanDevice::kPushBytes;
  spec.shader.optimize = false;
  std::vector<runtime::DeviceBuffer> buffers;
  std::vector<runtime::DeviceBuffer*> bindings;
  for (std::uint32_t k = 0; k < spec.buffer_count; ++k) buffers.push_back(context.allocate(64));
  for (auto& buffer : buffers) bindings.push_back(&buffer);
  const std::vector<std::byte> push(spec.push_constant_bytes);  // an instance count of 0: nothing runs
  // glslang's and the driver's one-off set-up, before the first file's times: they would count
  // in its glslang time, which is then taken off its driver time.
  const std::string warm_up = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
  const runtime::ComputePipeline warm_up_pipeline = context.create_pipeline(warm_up, spec);
  context.dispatch(warm_up_pipeline, bindings, push, {1, 1, 1});
  std::printf("file\tglslang_ms\tdriver_ms\tspirv_words\n");
  for (const char* path : files) {
    const std::string source = read_text(path);
    double begin = cpu_milliseconds();
    const runtime::ShaderBinary binary = runtime::compile_compute_shader(source, spec.shader, no_cache, "bench");
    const double glslang_ms = cpu_milliseconds() - begin;
    begin = cpu_milliseconds();
    const runtime::ComputePipeline pipeline = context.create_pipeline(source, spec);
    context.dispatch(pipeline, bindings, push, {1, 1, 1});
    // create_pipeline ran glslang again: the driver's share is what remains.
    const double driver_ms = cpu_milliseconds() - begin - glslang_ms;
    std::printf("%s\t%.0f\t%.0f\t%zu\n", path, glslang_ms, driver_ms, binary.words.size());
    std::fflush(stdout);
  }
  return 0;
}
