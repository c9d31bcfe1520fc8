// wave_gpu._native: the extension module of the wave_gpu package.
#include <nanobind/nanobind.h>

#include "bindings/runtime_bindings.hpp"
#include "bindings/wave_ir_bindings.hpp"

NB_MODULE(_native, module) {
  module.doc() = "wave_gpu native layer: devices, WAVE IR, emulator and Vulkan dispatch";
  wavestack::bindings::bind_runtime(module);
  wavestack::bindings::bind_wave_ir(module);
  wavestack::bindings::bind_wave_bench(module);
  wavestack::bindings::bind_wave_gpu(module);
}
