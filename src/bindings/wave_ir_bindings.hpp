// Bindings of the WAVE layer for wave_gpu._native: the IR builder the Python frontend
// drives, modules with their text form, emulator programs, the kernel disk cache, and the
// plain C++ reference loops the benchmark compares against.
#pragma once

#include <nanobind/nanobind.h>

namespace wavestack::bindings {

void bind_wave_ir(nanobind::module_& module);
void bind_wave_bench(nanobind::module_& module);
// GpuDevice, GpuBuffer, GpuProgram and emit_glsl: wave kernels on Vulkan devices.
void bind_wave_gpu(nanobind::module_& module);

}  // namespace wavestack::bindings
