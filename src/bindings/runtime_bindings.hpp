// Runtime-layer bindings shared by the packages that use Vulkan (wave_gpu, wasmgpu): the
// version, device listing, the smoke dispatch and the mapping of runtime errors.
#pragma once

#include <nanobind/nanobind.h>

namespace wavestack::bindings {

// Adds __version__, vulkan_status(), list_devices(), select_device(), vector_add_selftest()
// and the exception types VulkanError, DeviceError and ShaderCompileError to `module`.
void bind_runtime(nanobind::module_& module);

}  // namespace wavestack::bindings
