// The loaded module as the wasmgpu bindings hold it (shared by the module and instance bindings).
#pragma once

#include <nanobind/nanobind.h>

#include "wasm/module.hpp"

namespace wavestack::bindings {

// A loaded (decoded and validated) module, immutable once built.
struct NativeModule {
  wasm::Module module;
};

// Registers NativeInstances (wasmgpu_instances.cpp).
void bind_instances(nanobind::module_& module);

}  // namespace wavestack::bindings
