#include "wasm/device/interpreter_glsl.hpp"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "wasm/device/glsl/bulk_glsl.hpp"
#include "wasm/device/glsl/frames_glsl.hpp"
#include "wasm/device/glsl/instance_memory_glsl.hpp"
#include "wasm/device/glsl/instance_tables_glsl.hpp"
#include "wasm/device/glsl/interpreter_glsl.hpp"
#include "wasm/device/glsl/interpreter_layout_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_bindings_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_main_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_outcome_glsl.hpp"
#include "wasm/device/glsl/interpreter_wasi_glsl.hpp"
#include "wasm/device/glsl/vulkan_instantiate_main_glsl.hpp"
#include "wasm/device/glsl/wasi_accessors_glsl.hpp"
#include "wasm/device/glsl/wasi_layout_glsl.hpp"
#include "wasm/device/glsl/wasi_vulkan_main_glsl.hpp"
#include "wasm/device/numerics_glsl.hpp"
#include "wasm/device/wasi_glsl.hpp"

namespace wavestack::wasm::device {

namespace {

std::string concatenate(std::string source, std::initializer_list<std::string_view> parts) {
  for (const std::string_view part : parts) {
    source += part;
    source += '\n';
  }
  return source;
}

}  // namespace

std::string interpreter_shader_source() {
  // The bindings declare the accessors the device code calls; main() comes last. Of WASI the
  // interpreter needs only the region's layout (the exit words of the outcome).
  return concatenate(
      "#version 450\n" + numerics_glsl(),
      {glsl::interpreter_layout, glsl::wasi_layout, glsl::interpreter_vulkan_bindings, glsl::wasi_accessors,
       glsl::instance_memory, glsl::instance_tables, glsl::frames, glsl::bulk, glsl::interpreter,
       glsl::interpreter_vulkan_outcome, "#define RUN_LOOP interp_run", glsl::interpreter_vulkan_main});
}

std::string instantiation_shader_source() {
  // (The layout's constants: the bindings find the value stack by H_STACK.)
  return concatenate("#version 450\n",
                     {glsl::interpreter_layout, glsl::interpreter_vulkan_bindings, glsl::vulkan_instantiate_main});
}

std::string wasi_service_shader_source() {
  // The same bindings and layout, the WASI library instead of the interpreter loop.
  std::string source = concatenate(
      "#version 450\n" + numerics_glsl(),
      {glsl::interpreter_layout, glsl::interpreter_vulkan_bindings, glsl::wasi_accessors, glsl::instance_memory});
  source += wasi_glsl();
  return concatenate(std::move(source), {glsl::instance_tables, glsl::frames, glsl::interpreter_wasi,
                                         glsl::interpreter_vulkan_outcome, glsl::wasi_vulkan_main});
}

}  // namespace wavestack::wasm::device
