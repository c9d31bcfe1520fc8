#include "wasm/device/interpreter_glsl.hpp"

#include <string_view>

#include "wasm/device/glsl/interpreter_bulk_glsl.hpp"
#include "wasm/device/glsl/interpreter_frames_glsl.hpp"
#include "wasm/device/glsl/interpreter_glsl.hpp"
#include "wasm/device/glsl/interpreter_layout_glsl.hpp"
#include "wasm/device/glsl/interpreter_memory_glsl.hpp"
#include "wasm/device/glsl/interpreter_tables_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_bindings_glsl.hpp"
#include "wasm/device/glsl/interpreter_vulkan_main_glsl.hpp"
#include "wasm/device/numerics_glsl.hpp"

namespace wavestack::wasm::device {

std::string interpreter_shader_source() {
  std::string source = "#version 450\n";
  source += numerics_glsl();
  // The bindings declare the accessors the device code calls; main() comes last.
  for (const std::string_view part :
       {glsl::interpreter_layout, glsl::interpreter_vulkan_bindings, glsl::interpreter_memory, glsl::interpreter_tables,
        glsl::interpreter_frames, glsl::interpreter_bulk, glsl::interpreter, glsl::interpreter_vulkan_main}) {
    source += part;
    source += '\n';
  }
  return source;
}

}  // namespace wavestack::wasm::device
